package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.qpmanager.internal.bootstrap.Authenticator;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathAnswer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.PathSetup;
import dev.virtuoso.reassembler.Reassembler;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * The verbs resources of a connection being set up (device context, PD, CQ, SRQ, QPs), created
 * through the handshake's {@link PathSetup} calls. Released on {@link #close()} unless handed to an
 * engine.
 *
 * <p>Each side registers a {@link #PROBE_SCRATCH_BYTES} REMOTE_WRITE scratch region and advertises
 * it in its receive parameters: the peer's path monitor probes path capacity by RDMA WRITEs into
 * it. This side's probes read from a second region of that size, registered without write access.
 * The memory of both is the engine agent's, shared by its connections on the device
 * ({@link SharedDevice}); the registrations are the connection's.
 */
final class Setup implements PathSetup, AutoCloseable {
    final String id;
    final ConnectOptions options;
    final CoreSettings settings;
    final ControlWriter writer = new ControlWriter();
    final List<PathSlot> slots = new ArrayList<>();
    private final VerbsProvider provider;
    private final Reassembler reassembler;
    /** The engine agent that will serve the connection; its device context is used. */
    final EngineAgent agent;
    /** The connector's control I/O, which will run the connection's control channel. */
    final ControlIo controlIo;
    /** The connector's probe results per path pair, or {@code null}: not shared. */
    private final SharedCapacities capacities;
    private final ReceiveParams params;
    private List<InetAddress> locals;
    /** Size of the probe scratch region each side registers. */
    static final int PROBE_SCRATCH_BYTES = 128 * 1024;

    VerbsResources res;
    /** Source of this side's probes (no write access); the path monitor link closes it. */
    IbvMr probeSource;
    /** The scratch region advertised to the peer, target of its probes; released with the PD. */
    IbvMr probeTarget;
    Reassembly reassembly;
    private boolean handedOver;
    private boolean closed;
    /** Whether this side connected (the client) or accepted. */
    boolean client;

    /**
     * @param agent counted as serving this connection from now on; uncounted by {@link #close()} unless handed over
     * @param controlIo the connector's control I/O
     * @param capacities the connector's probe results per path pair, or {@code null}
     */
    Setup(String id, ConnectOptions options, CoreSettings settings, VerbsProvider provider, Reassembler reassembler,
            List<InetAddress> locals, EngineAgent agent, ControlIo controlIo, SharedCapacities capacities) {
        this.id = id;
        this.capacities = capacities;
        this.agent = agent;
        this.controlIo = controlIo;
        this.options = options;
        this.settings = settings;
        this.provider = provider;
        this.reassembler = reassembler;
        this.locals = locals;
        this.params = new ReceiveParams(options.maxOutstanding(), options.smallMessageSlots(), slotBytes(options),
                options.mtu());
    }

    /**
     * Small-message slots hold messages below the split threshold that fit them: the configured slot
     * size, at most the threshold, at least {@link ReassemblyConfig#MIN_SLOT_BYTES}.
     */
    static int slotBytes(ConnectOptions o) {
        return Math.max(ReassemblyConfig.MIN_SLOT_BYTES, Math.min(o.splitThreshold(),
                Math.min(o.smallMessageSlotBytes(), ReassemblyConfig.MAX_SLOT_BYTES)));
    }

    /**
     * Opens the device, PD, CQ and the reassembly's receive slots (idempotent): on an SRQ, or, when
     * the device reports {@code max_srq = 0}, a set per path QP (so the CQ also has room for every
     * path's slot completions).
     */
    void open() throws VirtuosoException {
        if (res != null) {
            return;
        }
        int slotCqes = options.smallMessageSlots();
        int sendCqes = settings.maxPaths() * settings.sendQueueDepth() + 64;
        res = VerbsResources.open(agent, provider, options.device(),
                device -> sendCqes + (device.maxSrq() == 0 ? settings.maxPaths() * slotCqes : slotCqes));
        if (locals == null) {
            locals = localAddresses(res.addresses(), options);
        }
        try {
            probeSource = res.pd.regMr(res.probeSource(), 0);
            probeTarget = res.pd.regMr(res.probeTarget(), IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE);
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.VERBS, "cannot register the probe scratch region: " + e.getMessage(), e);
        }
        try {
            reassembly = reassembler.newReassembly(new ReassemblyConfig(id, options.maxOutstanding(),
                    options.smallMessageSlots(), slotBytes(options), options.splitThreshold(), WrIdTags.SLOT), res.pd, res.device);
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.VERBS, "cannot create the receive queue: " + e.getMessage(), e);
        }
    }

    /**
     * @param vnics the device's vNIC addresses
     * @param o options naming a subset, or none
     * @return the local addresses paths may use
     * @throws VirtuosoException NO_PATH if an address is not a vNIC of the device
     */
    static List<InetAddress> localAddresses(List<InetAddress> vnics, ConnectOptions o) throws VirtuosoException {
        if (o.localAddresses().isEmpty()) {
            return List.copyOf(vnics);
        }
        for (InetAddress a : o.localAddresses()) {
            if (!vnics.contains(a)) {
                throw new VirtuosoException(Reason.NO_PATH, a + " is not a vNIC of the device (" + vnics + ")");
            }
        }
        return o.localAddresses();
    }

    List<InetAddress> locals() {
        return locals;
    }

    /** @return the shared probe results of this connection's device, or {@code null}; after {@link #open()} */
    SharedCapacities.Scope sharedCapacities() {
        return capacities == null ? null : capacities.scope(provider, res.context.deviceName());
    }

    /** The addresses the handshake pairs into paths: at most {@code maxPaths} of them. */
    @Override
    public List<InetAddress> localAddresses() {
        return locals.size() > settings.maxPaths() ? locals.subList(0, settings.maxPaths()) : locals;
    }

    @Override
    public ReceiveParams params() {
        IbvMr s = probeTarget;
        return s == null ? params : params.withScratch(new ScratchRegion(s.address(), s.rkey(), s.length()));
    }

    private PathSlot newSlot(InetAddress local, InetAddress remote) throws VirtuosoException {
        Vnic v = res.vnic(local);
        if (v == null || !locals.contains(local)) {
            throw new VirtuosoException(Reason.NO_PATH, local + " is not a vNIC this side serves");
        }
        try {
            PathSlot s = new PathSlot(local, remote, v.gidIndex(),
                    QpBuilder.create(res.pd, res.cq, reassembly, settings.sendQueueDepth()),
                    Authenticator.initialPsn(), settings.sendQueueDepth(), reassembly);
            slots.add(s);
            return s;
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.VERBS, "cannot create a QP: " + e.getMessage(), e);
        }
    }

    @Override
    public List<PathOffer> offerPaths(List<InetAddress> local, List<InetAddress> remote) throws VirtuosoException {
        open();
        List<PathOffer> offers = new ArrayList<>(local.size());
        for (int i = 0; i < local.size(); i++) {
            PathSlot s = newSlot(local.get(i), remote.get(i));
            offers.add(new PathOffer(s.local, s.remote, res.context.udpPort(), s.qp.qpNum(), s.localPsn));
        }
        return offers;
    }

    @Override
    public void connectPaths(ReceiveParams peer, List<PathAnswer> answers) throws VirtuosoException {
        for (int i = 0; i < answers.size(); i++) {
            PathSlot s = slots.get(i);
            PathAnswer a = answers.get(i);
            connect(s, a.udpPort(), a.qpn(), a.psn(), peer.mtu());
        }
    }

    @Override
    public List<PathAnswer> acceptPaths(ReceiveParams peer, List<PathOffer> offers) throws VirtuosoException {
        if (offers.size() > settings.maxPaths()) {
            throw new VirtuosoException(Reason.NO_PATH, "peer offers " + offers.size()
                    + " paths; this side takes at most " + settings.maxPaths() + " (maxPaths)");
        }
        open();
        List<PathAnswer> answers = new ArrayList<>(offers.size());
        for (PathOffer o : offers) {
            PathSlot s = newSlot(o.remote(), o.local());
            connect(s, o.udpPort(), o.qpn(), o.psn(), peer.mtu());
            answers.add(new PathAnswer(res.context.udpPort(), s.qp.qpNum(), s.localPsn));
        }
        return answers;
    }

    private void connect(PathSlot s, int udpPort, int qpn, int psn, int peerMtu) throws VirtuosoException {
        s.remoteUdpPort = udpPort;
        s.remoteQpn = qpn;
        s.remotePsn = psn;
        s.mtu = Math.min(options.mtu(), peerMtu);
        try {
            QpBuilder.connect(s, options);
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.VERBS, "cannot connect " + s + ": " + e.getMessage(), e);
        }
    }

    /** The resources now belong to an engine. */
    void handOver() {
        handedOver = true;
    }

    /** Releases everything unless handed over; idempotent. */
    @Override
    public void close() {
        if (handedOver || closed) {
            return;
        }
        closed = true;
        for (PathSlot s : slots) {
            s.destroy();
        }
        if (reassembly != null) {
            reassembly.close();
        }
        if (probeSource != null) {
            probeSource.close();
        }
        if (probeTarget != null) {
            probeTarget.close();
        }
        if (res != null) {
            res.close();
        }
        agent.unassign();
    }
}
