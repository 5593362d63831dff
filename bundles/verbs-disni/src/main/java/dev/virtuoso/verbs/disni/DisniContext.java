package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;
import dev.virtuoso.verbs.disni.sysfs.RdmaSysfs;
import dev.virtuoso.verbs.disni.sysfs.RoceGid;

/**
 * An open RDMA device. DiSNI has no {@code ibv_open_device}: its verbs context is the one
 * librdmacm attaches to a CM id bound to one of the device's addresses, so opening binds an id to
 * the device's first IPv4 vNIC and keeps it for the context's lifetime. The vNICs are the device's
 * IPv4 RoCE v2 GIDs read from sysfs.
 */
final class DisniContext implements IbvContext {
    private static final System.Logger LOG = System.getLogger(DisniContext.class.getName());
    /** RoCE v2's UDP port, fixed by the NIC. */
    static final int ROCE_V2_PORT = 4791;

    private final DisniVerbsProvider owner;
    private final String name;
    private final List<RoceGid> gids;
    private final List<Vnic> vnics;
    private final DisniSettings settings;
    private final ConnectionManager cm;
    private final com.ibm.disni.verbs.IbvContext nativeCtx;
    private final DeviceCounters counters;
    private final AtomicReferenceArray<DisniQp> qps = new AtomicReferenceArray<>(65536);
    private final Set<DisniPd> pds = ConcurrentHashMap.newKeySet();
    private final Set<DisniCq> cqs = ConcurrentHashMap.newKeySet();
    private final Set<DisniCompChannel> channels = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    private DisniContext(DisniVerbsProvider owner, String name, List<RoceGid> gids, DisniSettings settings,
            ConnectionManager cm, com.ibm.disni.verbs.IbvContext nativeCtx, DeviceCounters counters) {
        this.owner = owner;
        this.name = name;
        this.gids = List.copyOf(gids);
        this.vnics = gids.stream().map(RoceGid::toVnic).toList();
        this.settings = settings;
        this.cm = cm;
        this.nativeCtx = nativeCtx;
        this.counters = counters;
    }

    static DisniContext open(DisniVerbsProvider owner, RdmaCm rdmaCm, RdmaSysfs sysfs, String name,
            List<RoceGid> gids, DisniSettings settings) throws VerbsException {
        ConnectionManager cm;
        try {
            cm = new ConnectionManager(rdmaCm, name, settings);
        } catch (IOException e) {
            throw Errors.verbs("opening " + name + ": rdma_create_event_channel", e);
        }
        try {
            RdmaCmId id = cm.bindDevice(gids.get(0).address());
            com.ibm.disni.verbs.IbvContext nctx = id.getVerbs();
            if (nctx == null) {
                throw new VerbsException(VerbsException.ENODEV,
                        "opening " + name + ": " + gids.get(0).address() + " is not on an RDMA device");
            }
            List<Integer> ports = gids.stream().map(RoceGid::port).distinct().toList();
            return new DisniContext(owner, name, gids, settings, cm, nctx, new DeviceCounters(sysfs, name, ports));
        } catch (VerbsException | RuntimeException e) {
            cm.close();
            throw e;
        } catch (IOException e) {
            cm.close();
            throw new VerbsException(VerbsException.ENODEV, "opening " + name + ": binding an RDMA CM id to "
                    + gids.get(0).address() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String deviceName() {
        return name;
    }

    @Override
    public List<Vnic> vnics() {
        return vnics;
    }

    @Override
    public int udpPort() {
        return ROCE_V2_PORT;
    }

    /**
     * DiSNI 2.1 has no {@code ibv_query_device}: reports what the binding itself fixes (no SRQ,
     * libdisni's SGE limit) and -1 (unknown) for the device's queue and CQ limits.
     */
    @Override
    public IbvDeviceAttr queryDevice() throws VerbsException {
        checkOpen();
        return new IbvDeviceAttr().maxQpWr(-1).maxSge(DisniLimits.MAX_SGE).maxCqe(-1).maxSrq(0).maxSrqWr(0)
                .maxSrqSge(0);
    }

    @Override
    public IbvPd allocPd() throws VerbsException {
        checkOpen();
        try {
            DisniPd pd = new DisniPd(this, nativeCtx.allocPd());
            pds.add(pd);
            return pd;
        } catch (IOException e) {
            throw Errors.verbs("ibv_alloc_pd", e);
        }
    }

    @Override
    public DisniCompChannel createCompChannel() throws VerbsException {
        checkOpen();
        DisniCompChannel ch = new DisniCompChannel(this);
        channels.add(ch);
        return ch;
    }

    @Override
    public IbvCq createCq(int cqe, dev.virtuoso.spi.verbs.IbvCompChannel channel) throws VerbsException {
        checkOpen();
        if (cqe < 1) {
            throw new VerbsException(VerbsException.EINVAL, "createCq: cqe must be >= 1: " + cqe);
        }
        DisniCompChannel ch = null;
        if (channel != null) {
            if (!(channel instanceof DisniCompChannel c) || c.context() != this || c.isClosed()) {
                throw new VerbsException(VerbsException.EINVAL, "createCq: channel is not an open channel of " + name);
            }
            ch = c;
        }
        IbvCompChannel nativeChannel = null;
        try {
            nativeChannel = nativeCtx.createCompChannel();
            IbvCQ ncq = nativeCtx.createCQ(nativeChannel, cqe, 0);
            if (ncq == null) {
                throw new IOException("ibv_create_cq returned no CQ");
            }
            DisniCq cq = new DisniCq(this, ncq, nativeChannel, ch, cqe);
            cqs.add(cq);
            if (ch != null) {
                ch.attach(cq);
            }
            return cq;
        } catch (IOException e) {
            if (nativeChannel != null) {
                try {
                    nativeChannel.destroyCompChannel();
                } catch (IOException ignored) {
                    LOG.log(Level.DEBUG, "ibv_destroy_comp_channel failed", ignored);
                }
            }
            throw Errors.verbs("ibv_create_cq", e);
        }
    }

    @Override
    public VerbsCounters counters() {
        return counters;
    }

    // ---------------------------------------------------------------- for PDs, CQs and QPs

    DisniSettings settings() {
        return settings;
    }

    ConnectionManager cm() {
        return cm;
    }

    DisniCq ownCq(IbvCq cq, String role) throws VerbsException {
        if (!(cq instanceof DisniCq c) || c.context() != this || c.isClosed()) {
            throw new VerbsException(VerbsException.EINVAL, "createQp: " + role + " CQ is not an open CQ of " + name);
        }
        return c;
    }

    /** @return the IPv4 RoCE v2 GID entry (vNIC) with this index on this port */
    RoceGid gid(int port, int index) throws VerbsException {
        for (RoceGid g : gids) {
            if (g.port() == port && g.index() == index) {
                return g;
            }
        }
        throw new VerbsException(VerbsException.EINVAL, "RTR: sgidIndex " + index + " on port " + port
                + " is not an IPv4 RoCE v2 GID of " + name + "; vNICs: "
                + gids.stream().map(g -> g.port() + "/" + g.index() + "=" + g.address().getHostAddress())
                        .collect(Collectors.joining(", ")));
    }

    void register(DisniQp qp) {
        qps.set(qp.qpn, qp);
    }

    void unregister(DisniQp qp) {
        qps.compareAndSet(qp.qpn, qp, null);
    }

    DisniQp qp(int qpn) {
        return qpn >= 0 && qpn < qps.length() ? qps.get(qpn) : null;
    }

    void forget(DisniPd pd) {
        pds.remove(pd);
    }

    void forget(DisniCq cq) {
        cqs.remove(cq);
    }

    void forget(DisniCompChannel ch) {
        channels.remove(ch);
    }

    private void checkOpen() throws VerbsException {
        if (closed.get()) {
            throw new VerbsException(VerbsException.EINVAL, "device " + name + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (DisniPd pd : List.copyOf(pds)) {
            pd.close();
        }
        for (DisniCq cq : List.copyOf(cqs)) {
            cq.close();
        }
        for (DisniCompChannel ch : List.copyOf(channels)) {
            ch.close();
        }
        cm.close();
        owner.forget(this);
    }
}
