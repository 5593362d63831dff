package dev.virtuoso.qpmanager.internal.engine;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.MessageCompletionSink;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.qpmanager.internal.bootstrap.Fields;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.ReceiveCompletionSink;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The engine of one connection, on its own thread ({@code virtuoso-conn-<id>}): it alone touches
 * the QPs, the shared CQ, the decomposition, the reassembly and the policy sessions. Each duty
 * cycle takes commands, control frames and new MP work requests, polls the CQ, places chunks and
 * delivers completions; when idle it arms the CQ's completion channel and parks (a companion
 * thread, {@code virtuoso-cqev-<id>}, waits on the channel and unparks it).
 */
final class ConnectionEngine implements Runnable {
    private static final System.Logger LOG = System.getLogger(ConnectionEngine.class.getName());
    /** Park while recently busy; timers (drain deadline, failover, path repair) are checked after it. */
    private static final long SHORT_PARK_NANOS = 1_000_000;
    /** Park of a connection idle for a while: bounds the timers' granularity and idle wake-ups. */
    private static final long LONG_PARK_NANOS = 10_000_000;
    private static final int SHORT_PARKS = 16;
    private static final int SPINS = 16;
    private static final int YIELDS = 8;
    private static final int BATCH = 256;

    /** A task run on the engine thread. */
    interface Command {
        void run(ConnectionEngine e) throws Exception;
    }

    /** Told when the connection has released everything. */
    interface Observer {
        void closed(MpConnection c);
    }

    private final MpConnection conn;
    private final VerbsResources res;
    private final Reassembly reassembly;
    private final Decomposition decomposition;
    private final PathTable table;
    private final PathManager paths;
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
    private final PendingSends pendingSends;
    private final ReceiveCompletionSink recvSink;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final PolicyRegistry.Listener policyListener;
    private Thread thread;
    private Thread cqThread;
    private volatile boolean parked;
    private volatile boolean armed;
    private volatile boolean cqRunning = true;
    private volatile boolean closeRequested;
    private volatile long closeDeadline;
    private volatile List<PathStats> finalStats = List.of();
    private boolean peerDisconnected;
    private String fatal;
    private int idleRounds;
    private int parks;
    private long unknownCompletions;

    ConnectionEngine(MpConnection conn, VerbsResources res, Reassembly reassembly, Decomposition decomposition,
            PathTable table, PathManager paths, PolicyBinder policies, PathMonitorLink monitor, PolicyRegistry registry,
            ControlChannel channel, ControlWriter writer, Observer observer) {
        this.conn = conn;
        this.res = res;
        this.reassembly = reassembly;
        this.decomposition = decomposition;
        this.table = table;
        this.paths = paths;
        this.policies = policies;
        this.monitor = monitor;
        this.registry = registry;
        this.channel = channel;
        this.writer = writer;
        this.options = conn.options();
        this.observer = observer;
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

    /** The decomposition's completion sink: SEND completions also report to the reassembly. */
    static MessageCompletionSink sink(MpConnection conn, Reassembly reassembly) {
        return (wrId, tag, op, status, bytes, pathCount, detail) -> {
            if (op == MpOpcode.SEND) {
                reassembly.sendFinished(tag >>> 1, (tag & 1) != 0, status, bytes, pathCount);
            }
            conn.complete(wrId, op, status, bytes, pathCount, detail);
        };
    }

    void start() {
        // sessions are created here, before the engine thread starts (which publishes them to it)
        policies.start();
        registry.listen(policyListener);
        thread = new Thread(this, "virtuoso-conn-" + conn.id());
        thread.setDaemon(true);
        cqThread = new Thread(this::awaitEvents, "virtuoso-cqev-" + conn.id());
        cqThread.setDaemon(true);
        thread.start();
        cqThread.start();
        channel.start();
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

    boolean finished() {
        return finished.getCount() == 0;
    }

    Decomposition decomposition() {
        return decomposition;
    }

    Reassembly reassembly() {
        return reassembly;
    }

    // ---------------------------------------------------------------- other threads

    void command(Command c) {
        commands.add(c);
        wake();
    }

    void wake() {
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    /** Wakes the engine whether or not it is parked (control channel events). */
    void wakeAlways() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    void requestClose(long drainNanos) {
        if (!closeRequested) {
            closeDeadline = System.nanoTime() + drainNanos;
            closeRequested = true;
        }
        conn.stopPosting(ConnectionState.CLOSING);
        LockSupport.unpark(thread);
    }

    void join(long millis) {
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            finished.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitEvents() {
        while (cqRunning) {
            try {
                IbvCq fired = res.channel.getCqEvent(100, TimeUnit.MILLISECONDS);
                if (fired != null) {
                    fired.ackCqEvents(1);
                    armed = false;
                    LockSupport.unpark(thread);
                }
            } catch (VerbsException | RuntimeException e) {
                return;
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- duty cycle

    @Override
    public void run() {
        try {
            while (true) {
                long now = System.nanoTime();
                decomposition.tick(now);
                int work = monitor.tick(now);
                work += runCommands();
                work += readControl();
                work += takeRequests();
                work += pollCq();
                work += monitor.probe();
                work += startSends();
                work += decomposition.schedule();
                work += reassembly.deliver(recvSink);
                work += reassembly.duty();
                work += paths.duty(now);
                if (writer.takeWrote()) {
                    channel.flush();
                }
                if (ended(now)) {
                    return;
                }
                idle(work);
            }
        } catch (Throwable t) {
            fatal = "engine failure: " + t;
            LOG.log(System.Logger.Level.ERROR, "connection " + conn.id() + ": engine failure", t);
            teardown(ConnectionState.FAILED, fatal, true);
            if (t instanceof Error err) {
                throw err;
            }
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
        } catch (ReassemblyException e) {
            fatal = "peer broke the reassembly protocol: " + e.getMessage();
            LOG.log(System.Logger.Level.WARNING, "connection " + conn.id() + ": " + fatal, e);
        }
        return n;
    }

    private void frame(int type, ByteBuffer body) throws ProtocolException, ReassemblyException {
        long now = System.nanoTime();
        switch (type) {
            case Protocol.PING -> Fields.end(body, "PING");
            case Protocol.DISCONNECT -> peerDisconnected = true;
            case Protocol.REASSEMBLY -> reassembly.onControl(body);
            case Protocol.ADD_PATH -> paths.onAddPath(body);
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
                case Reassembly.SMALL -> decomposition.submit(spec.sendSmall(wrId, addr, r.mr.lkey(), len,
                        target.immData()).tag(target.sequence() << 1));
                case Reassembly.LARGE -> decomposition.submit(spec.sendLarge(wrId, addr, r.mr.lkey(), len,
                        target.remoteAddr(), target.rkey()).tag(target.sequence() << 1 | 1));
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

    private void idle(int work) {
        if (work > 0) {
            idleRounds = 0;
            parks = 0;
            return;
        }
        idleRounds++;
        if (idleRounds <= SPINS) {
            Thread.onSpinWait();
            return;
        }
        if (idleRounds <= SPINS + YIELDS) {
            Thread.yield();
            return;
        }
        if (!armed) {
            // armed before the request so an event that fires at once is not lost; poll again before parking
            armed = true;
            try {
                res.cq.reqNotifyCq(false);
            } catch (VerbsException e) {
                fatal = "cannot arm the completion queue: " + e.getMessage();
                LOG.log(System.Logger.Level.ERROR, "connection " + conn.id() + ": " + fatal, e);
            }
            return;
        }
        parked = true;
        if (!hasWork()) {
            LockSupport.parkNanos(this, parks++ < SHORT_PARKS ? SHORT_PARK_NANOS : LONG_PARK_NANOS);
        }
        parked = false;
        idleRounds = SPINS;
    }

    private boolean hasWork() {
        return conn.requests.peek() != null || !commands.isEmpty() || channel.inbound.readable() > 0
                || channel.state() != ControlChannel.OPEN || closeRequested || monitor.detachPending();
    }

    // ---------------------------------------------------------------- ending

    private boolean ended(long now) {
        if (fatal != null) {
            teardown(ConnectionState.FAILED, fatal, true);
            return true;
        }
        if (peerDisconnected) {
            teardown(ConnectionState.CLOSED, "peer disconnected", false);
            return true;
        }
        if (channel.state() != ControlChannel.OPEN) {
            teardown(ConnectionState.FAILED, "peer gone: " + channel.failure(), false);
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
        return conn.requests.peek() == null && pendingSends.isEmpty() && decomposition.messagesInProgress() == 0;
    }

    /** Flushes every unfinished request, tells the peer, releases every resource. */
    private void teardown(ConnectionState end, String reason, boolean tellPeer) {
        try {
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
        cqRunning = false;
        res.close();
        if (cqThread != null && cqThread != Thread.currentThread()) {
            try {
                cqThread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        conn.state(end, reason);
        try {
            // deregister before waking join(): Connector.close() must not return while a closed
            // connection is still listed
            if (observer != null) {
                observer.closed(conn);
            }
        } finally {
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
                + " unknownCqes=" + unknownCompletions + " " + monitor.describe() + " paths=" + pathStatsNow();
    }
}
