package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmEvent.EventType;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * TESTS ONLY: what the kernel's RDMA CM and librdmacm do for the ids of all emulated devices:
 * address bindings and port conflicts, listeners, REQ/REP (connect/accept drive both QPs
 * INIT -> RTR -> RTS with each other's QPN, random start PSNs and the path's GIDs), REJ when nobody
 * listens, DREQ on disconnect or destroy (own QP to ERR, DISCONNECTED events on both sides).
 */
public final class CmFabric {
    /**
     * The local ACK timeout (4.096 us x 2^14 = 67 ms) the emulated CM gives every connected QP: as
     * with the kernel's RDMA CM, the QP's owner does not choose it.
     */
    public static final int ACK_TIMEOUT = 14;

    private record Binding(InetAddress address, int port, EmuCmId id) {
    }

    /**
     * An established connection's end points.
     *
     * @param active the connecting side's bound address (its QP's source GID)
     * @param passive the accepting side's address (its QP's source GID)
     */
    public record Path(InetAddress active, InetAddress passive) {
    }

    private final List<Path> paths = new ArrayList<>();

    private final EmulatedDisni owner;
    private final List<Binding> bindings = new ArrayList<>();
    private final SplittableRandom random = new SplittableRandom(0x5eedL);
    private final AtomicLong established = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private int nextEphemeral = 32768;

    private final IbvMtu mtu;

    CmFabric(EmulatedDisni owner, IbvMtu mtu) {
        this.owner = owner;
        this.mtu = mtu;
    }

    /** @return connections established so far */
    public long established() {
        return established.get();
    }

    /** @return the end points of every connection established so far */
    public synchronized List<Path> paths() {
        return List.copyOf(paths);
    }

    /** @return connection requests rejected (no listener) so far */
    public long rejected() {
        return rejected.get();
    }

    synchronized void bind(EmuCmId id, SocketAddress address) throws IOException {
        InetSocketAddress a = (InetSocketAddress) address;
        if (id.state != EmuCmId.State.IDLE) {
            throw new IOException("j2c::bind: rdma_bind_addr failed: Invalid argument\n");
        }
        boolean wildcard = a.getAddress().isAnyLocalAddress();
        EmulatedDisni.EmuDevice dev = wildcard ? null : owner.deviceOf(a.getAddress());
        if (!wildcard && dev == null) {
            throw new IOException("j2c::bind: rdma_bind_addr failed: Cannot assign requested address\n");
        }
        int port = a.getPort();
        if (port == 0) {
            do {
                port = nextEphemeral;
                nextEphemeral = nextEphemeral >= 60999 ? 32768 : nextEphemeral + 1;
            } while (taken(a.getAddress(), port));
        } else if (taken(a.getAddress(), port)) {
            throw new IOException("j2c::bind: rdma_bind_addr failed: Address already in use\n");
        }
        bindings.add(new Binding(wildcard ? null : a.getAddress(), port, id));
        id.local = new InetSocketAddress(a.getAddress(), port);
        id.device(dev);
        id.state = EmuCmId.State.BOUND;
    }

    private boolean taken(InetAddress address, int port) {
        for (Binding b : bindings) {
            if (b.port() == port && (b.address() == null || address.isAnyLocalAddress() || b.address().equals(address))) {
                return true;
            }
        }
        return false;
    }

    synchronized void listen(EmuCmId id) throws IOException {
        if (id.state != EmuCmId.State.BOUND) {
            throw new IOException("j2c::listen: rdma_listen failed: Invalid argument\n");
        }
        id.state = EmuCmId.State.LISTENING;
    }

    synchronized void resolveAddr(EmuCmId id, SocketAddress destination) throws IOException {
        if (id.state != EmuCmId.State.BOUND) {
            throw new IOException("j2c::resolveAddr: rdma_resolve_addr failed: Invalid argument\n");
        }
        id.remote = (InetSocketAddress) destination;
        if (owner.deviceOf(id.remote.getAddress()) == null) {
            post(id, EventType.RDMA_CM_EVENT_ADDR_ERROR, null, id);
            return;
        }
        id.state = EmuCmId.State.ADDR_RESOLVED;
        post(id, EventType.RDMA_CM_EVENT_ADDR_RESOLVED, null, id);
    }

    synchronized void resolveRoute(EmuCmId id) throws IOException {
        if (id.state != EmuCmId.State.ADDR_RESOLVED) {
            throw new IOException("j2c::resolveRoute: rdma_resolve_route failed: Invalid argument\n");
        }
        id.state = EmuCmId.State.ROUTE_RESOLVED;
        post(id, EventType.RDMA_CM_EVENT_ROUTE_RESOLVED, null, id);
    }

    /** rdma_create_qp: the QP is created on the id's device and moved to INIT. */
    synchronized IbvQP createQp(EmuCmId id, EmuPd pd, IbvQPInitAttr attr) throws IOException {
        if (id.device == null || pd.getContext() != id.device.context() || id.getQp() != null) {
            throw new IOException("j2c::createQP: rdma_create_qp failed: Invalid argument\n");
        }
        EmuCq scq = (EmuCq) attr.getSend_cq();
        EmuCq rcq = (EmuCq) attr.getRecv_cq();
        IbvQpInitAttr a = new IbvQpInitAttr().sendCq(scq.spi).recvCq(rcq.spi)
                .maxSendWr(attr.cap().getMax_send_wr()).maxRecvWr(attr.cap().getMax_recv_wr())
                .maxSendSge(4).maxRecvSge(4).maxInlineData(attr.cap().getMax_inline_data());
        try {
            IbvQp spi = pd.spi.createQp(a);
            IbvQpAttr init = new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                    .qpAccessFlags(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ);
            spi.modifyQp(init, IbvQpAttr.MASK_INIT);
            EmuQp qp = new EmuQp(id.device.context(), pd, scq, rcq, spi);
            id.qp(qp);
            return qp;
        } catch (VerbsException e) {
            throw EmuObjects.libdisni("createQP", "rdma_create_qp", e);
        }
    }

    synchronized void connect(EmuCmId id, int retry, int rnrRetry) throws IOException {
        if (id.state != EmuCmId.State.ROUTE_RESOLVED || id.getQp() == null) {
            throw new IOException("j2c::connect: rdma_connect failed: Invalid argument\n");
        }
        id.retry = retry;
        id.rnrRetry = rnrRetry;
        EmuCmId listener = listenerFor(id.remote);
        if (listener == null) {
            rejected.incrementAndGet();
            id.state = EmuCmId.State.DISCONNECTED;
            post(id, EventType.RDMA_CM_EVENT_REJECTED, null, id);
            return;
        }
        EmuCmId conn = new EmuCmId(listener.channel);
        conn.local = id.remote;
        conn.remote = id.local;
        conn.device(owner.deviceOf(id.remote.getAddress()));
        conn.state = EmuCmId.State.REQUEST_RECEIVED;
        conn.peer = id;
        id.peer = conn;
        id.state = EmuCmId.State.CONNECTING;
        post(listener, EventType.RDMA_CM_EVENT_CONNECT_REQUEST, listener, conn);
    }

    private EmuCmId listenerFor(InetSocketAddress target) {
        for (Binding b : bindings) {
            if (b.port() == target.getPort() && b.id().state == EmuCmId.State.LISTENING
                    && (b.address() == null || b.address().equals(target.getAddress()))) {
                return b.id();
            }
        }
        return null;
    }

    /** rdma_accept + the active side's REP handling: both QPs to RTS, ESTABLISHED on both sides. */
    synchronized void accept(EmuCmId conn, int retry, int rnrRetry) throws IOException {
        EmuCmId active = conn.peer;
        if (conn.state != EmuCmId.State.REQUEST_RECEIVED || conn.getQp() == null || active == null
                || active.state != EmuCmId.State.CONNECTING || active.getQp() == null) {
            throw new IOException("j2c::accept: rdma_accept failed: Invalid argument\n");
        }
        int psnActive = random.nextInt(1 << 24);
        int psnPassive = random.nextInt(1 << 24);
        IbvQp p = ((EmuQp) conn.getQp()).spi;
        IbvQp a = ((EmuQp) active.getQp()).spi;
        try {
            toRts(p, a.qpNum(), psnActive, psnPassive, active.local.getAddress(),
                    conn.device.gidIndexOf(conn.local.getAddress()), active.device.spi().udpPort(), retry, rnrRetry);
            toRts(a, p.qpNum(), psnPassive, psnActive, conn.local.getAddress(),
                    active.device.gidIndexOf(active.local.getAddress()), conn.device.spi().udpPort(), active.retry,
                    active.rnrRetry);
        } catch (VerbsException e) {
            rejected.incrementAndGet();
            active.state = EmuCmId.State.DISCONNECTED;
            post(active, EventType.RDMA_CM_EVENT_REJECTED, null, active);
            throw EmuObjects.libdisni("accept", "rdma_accept", e);
        }
        conn.state = EmuCmId.State.CONNECTED;
        active.state = EmuCmId.State.CONNECTED;
        established.incrementAndGet();
        paths.add(new Path(active.local.getAddress(), conn.local.getAddress()));
        post(active, EventType.RDMA_CM_EVENT_ESTABLISHED, null, active);
        post(conn, EventType.RDMA_CM_EVENT_ESTABLISHED, null, conn);
    }

    private void toRts(IbvQp qp, int destQpn, int rqPsn, int sqPsn, InetAddress dgid, int sgidIndex,
            int udpPort, int retry, int rnrRetry) throws VerbsException {
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(mtu).destQpNum(destQpn)
                .rqPsn(rqPsn).maxDestRdAtomic(16).minRnrTimer(12);
        rtr.ahAttr().dgid(dgid).sgidIndex(sgidIndex).udpPort(udpPort);
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        IbvQpAttr rts = new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(sqPsn).timeout(ACK_TIMEOUT).retryCnt(retry)
                .rnrRetry(rnrRetry).maxRdAtomic(16);
        qp.modifyQp(rts, IbvQpAttr.MASK_RTS);
    }

    /**
     * rdma_disconnect: librdmacm moves the caller's QP to ERR and sends a DREQ; the peer gets
     * DISCONNECTED, its QP is left alone (its application decides), so its traffic to us now
     * meets a QP in ERR.
     */
    synchronized int disconnect(EmuCmId id) {
        toErr(id); // librdmacm modifies the QP to ERR first, whatever the CM state
        if (id.state != EmuCmId.State.CONNECTED) {
            return -1;
        }
        breakConnection(id, true);
        return 0;
    }

    private void breakConnection(EmuCmId id, boolean notifySelf) {
        toErr(id);
        id.state = EmuCmId.State.DISCONNECTED;
        EmuCmId peer = id.peer;
        if (peer != null && peer.state == EmuCmId.State.CONNECTED) {
            peer.state = EmuCmId.State.DISCONNECTED;
            post(peer, EventType.RDMA_CM_EVENT_DISCONNECTED, null, peer);
        }
        if (notifySelf) {
            post(id, EventType.RDMA_CM_EVENT_DISCONNECTED, null, id);
        }
    }

    private static void toErr(EmuCmId id) {
        if (id.getQp() instanceof EmuQp q) {
            try {
                q.spi.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
            } catch (VerbsException e) {
                // already destroyed: nothing to flush
            }
        }
    }

    synchronized int destroy(EmuCmId id) throws IOException {
        if (!id.isOpen()) {
            throw new IOException("Trying to destroy an already destroyed ID");
        }
        switch (id.state) {
            case CONNECTED -> breakConnection(id, false);
            case REQUEST_RECEIVED -> {
                EmuCmId active = id.peer;
                if (active != null && active.state == EmuCmId.State.CONNECTING) {
                    rejected.incrementAndGet();
                    active.state = EmuCmId.State.DISCONNECTED;
                    post(active, EventType.RDMA_CM_EVENT_REJECTED, null, active);
                }
            }
            default -> {
            }
        }
        bindings.removeIf(b -> b.id() == id);
        id.state = EmuCmId.State.DESTROYED;
        id.close();
        return 0;
    }

    synchronized int destroyQp(EmuCmId id) {
        if (!(id.getQp() instanceof EmuQp q)) {
            return -1;
        }
        q.close();
        ((EmuCq) q.getSend_cq()).destroyedQps.add(q.spi.qpNum());
        ((EmuCq) q.getRecv_cq()).destroyedQps.add(q.spi.qpNum());
        q.spi.close();
        id.qp(null);
        return 0;
    }

    synchronized void shutdown() {
        bindings.clear();
    }

    private static void post(EmuCmId to, EventType type, EmuCmId listenId, EmuCmId connId) {
        try {
            to.channel.events.add(new RdmaCmEvent(type.ordinal(), listenId, connId));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
