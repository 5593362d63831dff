package dev.virtuoso.qpmanager.internal.engine;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.decomposer.Decomposer;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionWiring;
import dev.virtuoso.decomposer.MessageCompletionSink;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.qpmanager.internal.bootstrap.Fields;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.ReceiveCompletionSink;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The engine of one connection: it alone touches the QPs, the shared CQ, the decomposition, the
 * reassembly and the policy sessions, always on the thread of the {@link EngineAgent} it was
 * assigned to ({@code virtuoso-engine-<n>}), which serves many connections. Each duty cycle takes
 * commands, control frames and new MP work requests, polls the CQ, places chunks and delivers
 * completions. When it has had nothing to do for a few cycles the agent arms its CQ (on the
 * agent's shared completion channel) and stops running it until it is woken (completion event,
 * request, command, control bytes) or its timer is due; {@link #timer} says when: soon while work
 * is in flight or a path protocol runs, at the drain deadline while closing, and otherwise never
 * (or, with a path monitor, at the monitor's housekeeping interval).
 *
 * <p>Everything the connection consists of is created here, in the constructor, in one place.
 */
final class ConnectionEngine {
    private static final System.Logger LOG = System.getLogger(ConnectionEngine.class.getName());
    /** Timer of a connection with work in flight or a path protocol running (failover, repair, drain). */
    static final long BUSY_TICK_NANOS = 1_000_000;
    /** Timer of an otherwise quiet connection with a path monitor (its periodic probes, cooldowns). */
    static final long HOUSEKEEPING_NANOS = 1_000_000_000L;
    private static final int BATCH = 256;
    private static final VarHandle QUEUED;

    static {
        try {
            QUEUED = MethodHandles.lookup().findVarHandle(ConnectionEngine.class, "queued", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A task run on the engine thread. */
    interface Command {
        void run(ConnectionEngine e) throws Exception;
    }

    /** Told when the connection has released everything. */
    interface Observer {
        void closed(MpConnection c);
    }

    private final EngineAgent agent;
    private final MpConnection conn;
    private final VerbsResources res;
    private final Reassembly reassembly;
    private final Decomposition decomposition;
    private final PathTable table;
    private final PathManager paths;
    private final PathPacer pacer;
    private final PolicyBinder policies;
    private final PathMonitorLink monitor;
    private final PolicyRegistry registry;
    private final ControlChannel channel;
    private final ControlWriter writer;
    private final ControlReader reader = new ControlReader();
    private final ConnectOptions options;
    private final Observer observer;
    private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
    private final IbvWc[] wcs = new IbvWc[64];
    private final MessageSpec spec = new MessageSpec();
    private final SendTarget target = new SendTarget();
    private final PlacementNotice notice = new PlacementNotice();
    private final PendingSends pendingSends;
    private final ReceiveCompletionSink recvSink;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final PolicyRegistry.Listener policyListener;
    /** True while the agent runs this engine or has it in its wake-up queue (set by CAS when woken). */
    private volatile boolean queued;
    /** The CQ is armed for one event; cleared by the event. */
    private volatile boolean armed;
    private volatile boolean ended;
    private volatile boolean closeRequested;
    private volatile long closeDeadline;
    private final Object closeLock = new Object();
    private volatile List<PathStats> finalStats = List.of();
    /** {@link #describe()} at teardown, before anything was flushed: what an ended connection last held. */
    private volatile String finalDescription = "";
    // ---- the agent's bookkeeping of this engine (agent thread only)
    boolean running;
    boolean timed;
    int idleCycles;
    long timerAt;
    /** End of the backoff window opened by the last data-path work (System.nanoTime, which may be negative). */
    long activeUntil = System.nanoTime();
    /**
     * When an application thread last polled this connection's completions with the engine run by
     * the pollers (written by that thread with release semantics, read by whoever runs the cycle).
     */
    private final AtomicLong polledAt = new AtomicLong(System.nanoTime() - EngineAgent.INVOKER_LEASE_NANOS);
    // ---- engine state
    private boolean peerDisconnected;
    private boolean controlBlocked;
    private boolean closeNoticed;
    private String fatal;
    private long unknownCompletions;
    /** Requests taken or completions polled since {@link #takeDataWork()} last looked. */
    private boolean dataWork;
    /** The MP_SEND riding in the control message ({@link #startInline}) until it ends. */
    private long inlineWrId;
    private long inlineLength;

    /**
     * Assembles the connection from what its set-up produced: control channel, path manager, path
     * monitor link, decomposition, policy sessions and the application's {@link MpConnection}.
     *
     * @param s the set-up (its resources are handed over by the caller once this returns)
     * @param peerScratch the peer's probe scratch region
     * @param socket the control channel's socket (owned by the connection from now on)
     * @param leftover bytes read past the handshake (flipped)
     * @param remote the peer's bootstrap address
     * @param monitor the connection's path monitor, or {@code null}
     * @param factory the factory that created {@code monitor}, or {@code null}
     * @throws IOException if the control channel cannot be set up (nothing else was created)
     */
    ConnectionEngine(Setup s, ScratchRegion peerScratch, SocketChannel socket, ByteBuffer leftover,
            InetSocketAddress remote, Decomposer decomposer, PolicyRegistry registry, PathMonitor monitor,
            PathMonitorFactory factory, Observer observer) throws IOException {
        CoreSettings cs = s.settings;
        this.agent = s.agent;
        this.options = s.options;
        this.res = s.res;
        this.reassembly = s.reassembly;
        this.writer = s.writer;
        this.registry = registry;
        this.observer = observer;
        this.channel = new ControlChannel(s.controlIo, s.id, socket, leftover, this::wake,
                TimeUnit.MILLISECONDS.toNanos(cs.heartbeatMillis()), TimeUnit.MILLISECONDS.toNanos(cs.livenessMillis()));
        try {
            this.conn = new MpConnection(s.id, remote, options, this, res);
            this.table = new PathTable(cs.maxPaths());
            this.paths = new PathManager(res, reassembly, table, writer, options, cs, s.locals(), s.client);
            this.pacer = new PathPacer(res.device, table.capacity());
            this.monitor = new PathMonitorLink(s.id, table, paths, s.probeSource, peerScratch, monitor, factory, writer,
                    s.client, s.sharedCapacities());
            paths.events(this.monitor);
            for (PathSlot slot : s.slots) {
                paths.addEstablished(slot);
            }
            this.decomposition = decomposer.newDecomposition(
                    new DecompositionConfig(s.id, maxMessages(options, reassembly), cs.maxPaths() * cs.sendQueueDepth(),
                            options.splitThreshold(), options.chunkSize(), cs.builtinChunksPerPath(),
                            options.failoverTimeout().toNanos(), WrIdTags.CHUNK),
                    new DecompositionWiring(table, paths.chunks(), sink(conn, reassembly), this.monitor, this.monitor.view()));
            paths.decomposition(decomposition);
            this.policies = new PolicyBinder(registry, options, s.id, decomposition, this.monitor.view());
            this.monitor.attach(decomposition, policies);
            writer.attach(channel);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
        this.pendingSends = new PendingSends(options.maxOutstanding());
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWc();
        }
        this.recvSink = (wrId, status, len, pathCount, detail) -> conn.complete(wrId, MpOpcode.RECV, status, len,
                pathCount, detail);
        this.policyListener = new PolicyRegistry.Listener() {
            @Override
            public void policyGone(Object policy) {
                command(e -> e.policies.policyGone(policy));
            }

            @Override
            public void policyAdded(String name) {
                command(e -> e.policies.policyAdded(name));
            }
        };
    }

    /** SEND tags: the sequence number (or the slot of a notice or control message) shifted left by 2, the kind in the low bits. */
    static final long SEND_SMALL = 0;
    static final long SEND_LARGE = 1;
    static final long SEND_NOTICE = 2;
    /** A control message carrying a small MP_SEND: the MP_SEND's length in the tag's bits 32..63. */
    static final long SEND_INLINE = 3;

    /**
     * The application's requests, one placement notice per entry the reassembly has for them, and the
     * reassembly's one control message in flight.
     */
    static int maxMessages(ConnectOptions options, Reassembly reassembly) {
        return options.maxOutstanding() + reassembly.config().maxReceives() + 1;
    }

    /**
     * The decomposition's completion sink: SEND completions also report to the reassembly; a
     * placement notice (the engine's own SEND) reports to it only.
     */
    static MessageCompletionSink sink(MpConnection conn, Reassembly reassembly) {
        return (wrId, tag, op, status, bytes, pathCount, detail) -> {
            if (op == MpOpcode.SEND) {
                long kind = tag & 3;
                if (kind == SEND_NOTICE) {
                    reassembly.noticeFinished((int) (tag >>> 2), status);
                    return;
                }
                if (kind == SEND_INLINE) {
                    reassembly.noticeFinished((int) tag >>> 2, status);
                    if (!reassembly.inlinePending()) { // else posted again: the MP_SEND ends with a later attempt
                        conn.complete(wrId, op, status, tag >>> 32, 1, detail);
                    }
                    return;
                }
                reassembly.sendFinished(tag >>> 2, kind == SEND_LARGE, status, bytes, pathCount);
            }
            conn.complete(wrId, op, status, bytes, pathCount, detail);
        };
    }

    /** Starts the policy sessions, the control channel and service by the agent. */
    void start() {
        // sessions are created here, before the agent first runs the engine (adding it publishes them)
        policies.start();
        registry.listen(policyListener);
        res.listen(this);
        channel.start();
        queued = true;
        agent.add(this);
    }

    MpConnection connection() {
        return conn;
    }

    /** @return the thread that runs this engine (its agent's), or {@code null} before the agent started */
    Thread thread() {
        return agent.thread();
    }

    EngineAgent agent() {
        return agent;
    }

    // ---------------------------------------------------------------- accessors for commands

    PathManager paths() {
        return paths;
    }

    PolicyBinder policies() {
        return policies;
    }

    PolicyRegistry registry() {
        return registry;
    }

    PathMonitorLink monitor() {
        return monitor;
    }

    List<PathStats> pathStatsNow() {
        return monitor.overlay(paths.stats());
    }

    List<PathStats> finalStats() {
        return finalStats;
    }

    String finalDescription() {
        return finalDescription;
    }

    boolean finished() {
        return finished.getCount() == 0;
    }

    Decomposition decomposition() {
        return decomposition;
    }

    Reassembly reassembly() {
        return reassembly;
    }

    /** The connection's control channel (tests read and write its rings). */
    ControlChannel channel() {
        return channel;
    }

    // ---------------------------------------------------------------- other threads

    void command(Command c) {
        commands.add(c);
        wake();
    }

    /**
     * Any thread, after publishing something for the engine (request, command, control bytes):
     * makes the agent run the engine if it is quiet. Allocation-free; cheap while it runs.
     */
    void wake() {
        // the caller's publication must be visible before the flag is read (the agent clears the
        // flag, then looks for work: one of the two sides sees the other)
        VarHandle.fullFence();
        if (!queued && QUEUED.compareAndSet(this, false, true)) {
            agent.schedule(this);
        }
    }

    /** Wakes the engine (control channel events, monitor detach): same as {@link #wake()}. */
    void wakeAlways() {
        wake();
    }

    /** The shared completion channel reported this engine's CQ (the one-shot arming is spent). */
    void completionEvent() {
        armed = false;
        wake();
    }

    /** Any thread: ends the connection once its work drained or by {@code drainNanos}, the earliest asked for. */
    void requestClose(long drainNanos) {
        long deadline = System.nanoTime() + drainNanos;
        synchronized (closeLock) {
            // a disconnect with a long drain and a forced close at once: the earlier deadline holds
            if (!closeRequested || deadline - closeDeadline < 0) {
                closeDeadline = deadline;
            }
            closeRequested = true;
        }
        conn.stopPosting(ConnectionState.CLOSING);
        wake();
    }

    void join(long millis) {
        if (agent.inDuty()) {
            return;
        }
        try {
            finished.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- agent bookkeeping (agent thread)

    boolean queued() {
        return queued;
    }

    boolean ended() {
        return ended;
    }

    /** Application thread polling this connection: it is not quiet while polled (EngineAgent). */
    void polled(long now) {
        polledAt.lazySet(now);
    }

    /** @return when an application thread last polled this connection */
    long polledAt() {
        return polledAt.get();
    }

    /** Agent thread: true if the duty cycles since the last call took requests or polled completions. */
    boolean takeDataWork() {
        boolean d = dataWork;
        dataWork = false;
        return d;
    }

    /** @return true if the CQ was armed now (poll once more before going quiet), false if it already was */
    boolean armCq() {
        if (armed) {
            return false;
        }
        armed = true;
        try {
            res.cq.reqNotifyCq(false);
        } catch (VerbsException e) {
            fatal = "cannot arm the completion queue: " + e.getMessage();
        }
        return true;
    }

    /**
     * The agent stops running this engine unless work arrived meanwhile.
     *
     * @return true if the engine is quiet now (a later {@link #wake()} schedules it again)
     */
    boolean quiet() {
        queued = false;
        VarHandle.fullFence();
        if (hasWork()) {
            // stays running; if another thread set the flag meanwhile, it queued this engine as well
            QUEUED.compareAndSet(this, false, true);
            return false;
        }
        return true;
    }

    /**
     * @param now the agent's clock
     * @return when a quiet engine must run again without an event, or {@link Long#MAX_VALUE} for never
     */
    long timer(long now) {
        long t = Long.MAX_VALUE;
        if (closeRequested) {
            t = closeDeadline;
        }
        if (decomposition.messagesInProgress() > 0 || decomposition.chunksInFlight() > 0 || !pendingSends.isEmpty()
                || reassembly.noticesPending() || controlBlocked || paths.timersPending() || monitor.timersPending()) {
            t = Math.min(t, now + BUSY_TICK_NANOS);
        } else if (monitor.monitored()) {
            t = Math.min(t, now + HOUSEKEEPING_NANOS);
        }
        return t;
    }

    /** Agent thread, when the group stops with this connection still open: fails it, releasing everything. */
    void abort(String reason) {
        if (ended) {
            return;
        }
        try {
            teardown(ConnectionState.FAILED, reason, false);
        } catch (RuntimeException e) {
            // releasing the other connections matters more
        }
    }

    // ---------------------------------------------------------------- duty cycle

    /**
     * One duty cycle (agent thread). Ends the connection when it is over, failed or the engine
     * itself failed; a failure never leaves this method (the agent serves other connections).
     *
     * @return work done (0 when idle)
     */
    int duty() {
        return duty(System.nanoTime());
    }

    /**
     * {@link #duty()} at {@code now}: the agent reads the clock once per cycle for all its
     * connections (a clock read is a noticeable part of an idle poll).
     */
    int duty(long now) {
        if (ended) {
            return 0;
        }
        try {
            decomposition.tick(now);
            int work = monitor.tick(now);
            work += runCommands();
            work += readControl();
            int requests = takeRequests();
            int completed = pollCq();
            int data = requests + completed;
            if (completed > 0) {
                work += pacer.update(decomposition, table, paths);
            }
            dataWork |= data > 0;
            work += data;
            work += monitor.probe();
            work += startNotices(); // control messages and notices take slot credits before small messages
            work += startSends();
            work += decomposition.schedule();
            work += reassembly.deliver(recvSink);
            work += paths.duty(now);
            if (writer.takeWrote()) {
                channel.flush();
            }
            controlBlocked = writer.takeRefused();
            if (ended(now)) {
                return work + 1;
            }
            return work;
        } catch (Throwable t) {
            fatal = "engine failure: " + t;
            LOG.log(System.Logger.Level.ERROR, "connection " + conn.id() + ": engine failure", t);
            if (!ended) {
                teardown(ConnectionState.FAILED, fatal, true);
            }
            return 1;
        }
    }

    /**
     * A posting cycle (whoever holds the claim, right after an application thread posted): takes the
     * application's requests and starts what they allow, without the rest of a duty cycle. In
     * particular it does not poll the CQ, which on a device run by its pollers is a device cycle (a
     * system call on the UDP wire): a raw QP's post does not poll either. The next duty cycle does
     * the rest; a failure here is left for it to end the connection with.
     *
     * @return work done
     */
    int post() {
        if (ended || fatal != null) {
            return 0;
        }
        try {
            int requests = takeRequests();
            if (requests == 0) {
                return 0;
            }
            dataWork = true;
            return requests + startNotices() + startSends() + decomposition.schedule();
        } catch (RuntimeException e) {
            fatal = "engine failure: " + e;
            LOG.log(System.Logger.Level.ERROR, "connection " + conn.id() + ": engine failure", e);
            return 1;
        }
    }

    private int runCommands() {
        int n = 0;
        Command c;
        while (n < BATCH && (c = commands.poll()) != null) {
            n++;
            try {
                c.run(this);
            } catch (Exception e) {
                fatal = "command failed: " + e;
                LOG.log(System.Logger.Level.ERROR, "connection " + conn.id() + ": command failed", e);
            }
        }
        return n;
    }

    private int readControl() {
        int n = 0;
        try {
            while (n < BATCH && fatal == null) {
                int type = reader.next(channel.inbound);
                if (type < 0) {
                    break;
                }
                n++;
                frame(type, reader.body());
            }
        } catch (ProtocolException e) {
            fatal = "peer broke the control protocol: " + e.getMessage();
            LOG.log(System.Logger.Level.WARNING, "connection " + conn.id() + ": " + fatal, e);
        }
        return n;
    }

    private void frame(int type, ByteBuffer body) throws ProtocolException {
        long now = System.nanoTime();
        switch (type) {
            case Protocol.PING -> Fields.end(body, "PING");
            case Protocol.DISCONNECT -> peerDisconnected = true;
            case Protocol.ADD_PATH -> paths.onAddPath(body, now);
            case Protocol.ADD_PATH_ACK -> paths.onAddPathAck(body);
            case Protocol.ADD_PATH_NAK -> paths.onAddPathNak(body);
            case Protocol.PATH_READY -> paths.onPathReady(body);
            case Protocol.REMOVE_PATH -> paths.onRemovePath(body, now);
            case Protocol.PATH_DRAINED -> paths.onPathDrained(body);
            case Protocol.REPAIR_PATH -> paths.onRepairPath(body);
            case Protocol.REPAIR_ACK -> paths.onRepairAck(body);
            case Protocol.REPAIR_NAK -> paths.onRepairNak(body);
            case Protocol.PROBES_DONE -> monitor.onPeerProbesDone(body);
            default -> throw new ProtocolException("unexpected " + Protocol.typeName(type) + " on the control channel");
        }
    }

    private int takeRequests() {
        int n = 0;
        RequestRing.Request q;
        while (n < BATCH && (q = conn.requests.peek()) != null) {
            request(q);
            conn.requests.release();
            n++;
        }
        return n;
    }

    private void request(RequestRing.Request q) {
        Region r = q.region;
        if (r.closed()) {
            conn.complete(q.wrId, opcode(q.op), MpStatus.LOCAL_PROTECTION_ERROR, 0, 0, "region closed");
            return;
        }
        long addr = r.mr.address() + q.offset;
        switch (q.op) {
            case RequestRing.WRITE -> decomposition.submit(
                    spec.write(q.wrId, addr, r.mr.lkey(), q.length, q.remoteAddr, q.rkey));
            case RequestRing.READ -> decomposition.submit(
                    spec.read(q.wrId, addr, r.mr.lkey(), q.length, q.remoteAddr, q.rkey));
            case RequestRing.SEND -> pendingSends.add(q.wrId, r, q.offset, q.length);
            case RequestRing.RECV -> reassembly.postReceive(q.wrId, r.engineView, (int) q.offset, (int) q.length,
                    addr, r.mr.rkey(), r.access().contains(Access.REMOTE_WRITE));
            default -> throw new IllegalStateException("unknown request " + q.op);
        }
    }

    private static MpOpcode opcode(int op) {
        return switch (op) {
            case RequestRing.WRITE -> MpOpcode.WRITE;
            case RequestRing.READ -> MpOpcode.READ;
            case RequestRing.SEND -> MpOpcode.SEND;
            default -> MpOpcode.RECV;
        };
    }

    private int startSends() {
        int n = 0;
        while (!pendingSends.isEmpty()) {
            long len = pendingSends.headLength();
            int kind = reassembly.reserveSend(len, target);
            if (kind == Reassembly.NOT_READY) {
                break;
            }
            long wrId = pendingSends.headWrId();
            Region r = pendingSends.headRegion();
            long addr = r.mr.address() + pendingSends.headOffset();
            switch (kind) {
                // a remotely writable receive buffer takes a small message by WRITE with immediate,
                // zero copy at the peer; any other goes by SEND into a slot and is copied there
                case Reassembly.SMALL -> decomposition.submit((target.direct()
                        ? spec.sendSmallDirect(wrId, addr, r.mr.lkey(), len, target.remoteAddr(), target.rkey(),
                                target.immData())
                        : spec.sendSmall(wrId, addr, r.mr.lkey(), len, target.immData()).dropsDuplicates())
                        .tag(target.sequence() << 2 | SEND_SMALL));
                case Reassembly.LARGE -> decomposition.submit(spec.sendLarge(wrId, addr, r.mr.lkey(), len,
                        target.remoteAddr(), target.rkey()).tag(target.sequence() << 2 | SEND_LARGE));
                case Reassembly.TOO_LONG -> conn.complete(wrId, MpOpcode.SEND, MpStatus.REMOTE_OPERATION_ERROR, 0,
                        0, "message of " + len + " bytes is longer than the peer's receive buffer");
                default -> conn.complete(wrId, MpOpcode.SEND, MpStatus.REMOTE_ACCESS_ERROR, 0, 0,
                        "the peer's receive buffer is not registered for remote write");
            }
            pendingSends.removeHead();
            n++;
        }
        return n;
    }

    /**
     * Posts the reassembly's control message (advertisements, credits, reports) and the placement
     * notices of large MP_SENDs whose every byte is placed (and fenced): each is one small SEND with
     * immediate through the decomposition, so it goes whole on one live path and is re-posted on
     * another if that path fails, like a small message.
     */
    private int startNotices() {
        int n = startInline();
        while (reassembly.nextNotice(notice)) {
            boolean carries = notice.carriesSend();
            long tag = carries ? inlineLength << 32 | (long) notice.slot() << 2 | SEND_INLINE
                    : (long) notice.slot() << 2 | SEND_NOTICE;
            // the receiver drops a second copy of a notice or control message (by its sequence), so a
            // copy re-sent after a path failure completes without waiting for that path's repair
            if (!decomposition.submit(spec.sendSmall(carries ? inlineWrId : 0, notice.localAddr(), notice.lkey(),
                    notice.length(), notice.immData()).dropsDuplicates().tag(tag))) {
                // cannot happen (room for every notice entry and the control message is reserved): a
                // notice's report goes in a control message, a control message is posted again
                reassembly.noticeFinished(notice.slot(), MpStatus.PATH_FAILURE);
            }
            n++;
        }
        return n;
    }

    /**
     * The next MP_SEND rides in the control message if one is due now and it fits (one SEND on the
     * wire instead of two; {@link Reassembly#reserveInline}): it leaves the pending queue, and the
     * control message posted next carries its wr_id and ends it.
     */
    private int startInline() {
        if (pendingSends.isEmpty()) {
            return 0;
        }
        Region r = pendingSends.headRegion();
        long len = pendingSends.headLength();
        if (r.closed() || reassembly.reserveInline(len, r.engineView, (int) pendingSends.headOffset(), target)
                != Reassembly.INLINE) {
            return 0;
        }
        inlineWrId = pendingSends.headWrId();
        inlineLength = len;
        pendingSends.removeHead();
        return 1;
    }

    private int pollCq() {
        int total = 0;
        try {
            int n;
            do {
                n = res.cq.pollCq(wcs, wcs.length);
                for (int i = 0; i < n; i++) {
                    IbvWc wc = wcs[i];
                    long wrId = wc.wrId();
                    if (WrIdTags.owns(WrIdTags.CHUNK, wrId)) {
                        decomposition.onCompletion(wc);
                    } else if (WrIdTags.owns(WrIdTags.SLOT, wrId)) {
                        reassembly.onCompletion(wc);
                    } else if (WrIdTags.owns(WrIdTags.PROBE, wrId)) {
                        monitor.onProbeCompletion(wc);
                    } else {
                        unknownCompletions++;
                    }
                }
                total += n;
            } while (n == wcs.length && total < 4 * BATCH);
        } catch (VerbsException e) {
            fatal = "completion queue failed: " + e.getMessage();
            LOG.log(System.Logger.Level.ERROR, "connection " + conn.id() + ": " + fatal, e);
        } catch (ReassemblyException e) {
            fatal = "peer broke the reassembly protocol: " + e.getMessage();
            LOG.log(System.Logger.Level.WARNING, "connection " + conn.id() + ": " + fatal, e);
        }
        return total;
    }

    /**
     * Everything another thread may have published before calling {@link #wake()}: checked after
     * the agent cleared {@link #queued}, so a wake-up that saw the flag still set is not lost.
     */
    private boolean hasWork() {
        return !armed || conn.requests.peek() != null || !commands.isEmpty() || channel.inbound.readable() > 0
                || channel.state() != ControlChannel.OPEN || monitor.detachPending()
                || closeRequested && !closeNoticed;
    }

    // ---------------------------------------------------------------- ending

    private boolean ended(long now) {
        if (closeRequested) {
            closeNoticed = true; // from now on the drain deadline is this engine's timer
        }
        if (!peerDisconnected && channel.state() != ControlChannel.OPEN) {
            // the I/O thread may have queued the peer's last frames (reports, DISCONNECT) together
            // with the end of stream after this cycle read the ring: read them before judging
            while (readControl() > 0) {
                // every frame up to the end of stream
            }
        }
        if (fatal != null) {
            teardown(ConnectionState.FAILED, fatal, true);
            return true;
        }
        if (peerDisconnected || channel.state() != ControlChannel.OPEN) {
            // what the peer sent before it went is in our CQ (its SEND completed only once our RNIC
            // had placed it): take it before teardown flushes receives (the flush delivers it first)
            pollCq();
            if (peerDisconnected) {
                teardown(ConnectionState.CLOSED, "peer disconnected", false);
            } else {
                teardown(ConnectionState.FAILED, "peer gone: " + channel.failure(), false);
            }
            return true;
        }
        if (closeRequested && (drained() || now - closeDeadline >= 0)) {
            teardown(ConnectionState.CLOSED, "disconnected", true);
            return true;
        }
        if (decomposition.counters().failoverTimeouts() > 0) {
            // every path failed and none recovered in time: the requests failed, so does the connection
            teardown(ConnectionState.FAILED, "no usable path for " + options.failoverTimeout().toMillis() + " ms",
                    true);
            return true;
        }
        return false;
    }

    private boolean drained() {
        return conn.requests.peek() == null && pendingSends.isEmpty() && decomposition.messagesInProgress() == 0
                && !reassembly.noticesPending();
    }

    /** Flushes every unfinished request, tells the peer, releases every resource. */
    private void teardown(ConnectionState end, String reason, boolean tellPeer) {
        try {
            finalDescription = describe();
            conn.ending(reason); // before the flushed completions, whose readers may ask why
            conn.stopPosting(ConnectionState.CLOSING);
            RequestRing.Request q;
            while ((q = conn.requests.peek()) != null) {
                conn.complete(q.wrId, opcode(q.op), MpStatus.FLUSHED, 0, 0, reason);
                conn.requests.release();
            }
            while (!pendingSends.isEmpty()) {
                conn.complete(pendingSends.headWrId(), MpOpcode.SEND, MpStatus.FLUSHED, 0, 0, reason);
                pendingSends.removeHead();
            }
            decomposition.failAll(MpStatus.FLUSHED, reason, true);
            reassembly.flush(recvSink, MpStatus.FLUSHED);
            finalStats = monitor.overlay(paths.stats());
            if (tellPeer && channel.state() == ControlChannel.OPEN) {
                ByteBuffer b = writer.claim();
                if (b != null) {
                    Fields.text(b, reason);
                    writer.commit(Protocol.DISCONNECT, b);
                }
                channel.close(200_000_000L);
            } else {
                channel.close(0);
            }
        } finally {
            release(end, reason);
        }
    }

    private void release(ConnectionState end, String reason) {
        registry.unlisten(policyListener);
        closeQuietly(decomposition);
        paths.closeAll(reason);
        closeQuietly(monitor);
        closeQuietly(reassembly);
        conn.closeRegions();
        res.close();
        conn.state(end, reason);
        try {
            // deregister before waking join(): Connector.close() must not return while a closed
            // connection is still listed
            if (observer != null) {
                observer.closed(conn);
            }
        } finally {
            ended = true;
            agent.unassign();
            finished.countDown();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // releasing everything else matters more
            LOG.log(System.Logger.Level.DEBUG, "closing " + c + " failed", e);
        }
    }

    long unknownCompletions() {
        return unknownCompletions;
    }

    /** @return a one-line diagnostic of the engine's state (engine thread) */
    String describe() {
        return "messages=" + decomposition.messagesInProgress() + " awaitingFence="
                + decomposition.messagesAwaitingFence() + " chunks=" + decomposition.chunksInFlight()
                + " pendingSends=" + !pendingSends.isEmpty() + " receives=" + reassembly.receivesInProgress() + " "
                + decomposition.counters() + " " + reassembly.counters() + " pathFailures=" + paths.pathFailures()
                + " joinsExpired=" + paths.joinsExpired() + " controlIgnored=" + paths.controlIgnored()
                + " answersUnsent=" + paths.answersUnsent() + " unknownCqes=" + unknownCompletions + " " + monitor.describe() + " paths=" + pathStatsNow();
    }
}
