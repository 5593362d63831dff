package dev.virtuoso.qpmanager.internal.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.IdleShift;

/**
 * The application's side of a multipath connection: validates and hands MP work requests to the
 * engine through a lock-free ring, and hands completions back through another. Everything else is
 * done by its {@link ConnectionEngine}, on the thread of the engine agent serving it. Created by
 * that engine, with it.
 */
public final class MpConnection implements MultipathConnection {
    private static final System.Logger LOG = System.getLogger(MpConnection.class.getName());
    private static final long COMMAND_TIMEOUT_MILLIS = 10_000;
    /** How often a wait for an engine command's answer looks whether the engine ended. */
    private static final long COMMAND_SLICE_MILLIS = 50;
    /**
     * How long {@link #awaitCompletion} polls before it blocks: a completion due within a round trip
     * or so is taken without a wake-up by the engine thread (backoff: spin, then yield, then block).
     */
    static final long AWAIT_SPIN_NANOS = 50_000;
    private static final int AWAIT_BUSY_SPINS = 64;

    private final String id;
    private final InetSocketAddress remoteBootstrap;
    private final ConnectOptions options;
    final RequestRing requests;
    final CompletionRing completions;
    private final AtomicInteger sendPermits;
    private final AtomicInteger recvPermits;
    private final AtomicInteger posters = new AtomicInteger();
    private final Set<Region> regions = ConcurrentHashMap.newKeySet();
    private final Object waitLock = new Object();
    private volatile int waiters;
    /**
     * How far {@link #awaitCompletion}'s spin is shrunk ({@link IdleShift}): a hint shared by
     * the awaiting threads, written without a lock on purpose (a lost update only mistimes a spin).
     */
    private int awaitSpinShift;
    /** When the engine last published a completion to a blocked waiter; guarded by waitLock. */
    private long notifiedAt;
    private volatile ConnectionState state = ConnectionState.ESTABLISHED;
    /** {@link #state}: CLOSING may be set by several threads at once, never over an end state. */
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(MpConnection.class, "state",
                    ConnectionState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private volatile String endReason;
    private final ConnectionEngine engine;
    /** The engine's agent if polling threads run it ({@code invokeOnPoll}), else null. */
    private final EngineAgent invoker;
    private final VerbsResources res;

    MpConnection(String id, InetSocketAddress remoteBootstrap, ConnectOptions options, ConnectionEngine engine,
            VerbsResources res) {
        this.id = id;
        this.engine = engine;
        this.invoker = engine != null && engine.agent().invokeOnPoll() ? engine.agent() : null;
        this.res = res;
        this.remoteBootstrap = remoteBootstrap;
        this.options = options;
        this.requests = new RequestRing(2 * options.maxOutstanding());
        this.completions = new CompletionRing(2 * options.maxOutstanding());
        this.sendPermits = new AtomicInteger(options.maxOutstanding());
        this.recvPermits = new AtomicInteger(options.maxOutstanding());
    }

    ConnectOptions options() {
        return options;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public ConnectionState state() {
        return state;
    }

    @Override
    public InetSocketAddress remoteBootstrapAddress() {
        return remoteBootstrap;
    }

    // ---------------------------------------------------------------- memory

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<Access> access) throws VirtuosoException {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(access, "access");
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("only direct buffers can be registered");
        }
        if (!buffer.hasRemaining()) {
            throw new IllegalArgumentException("empty buffer range");
        }
        checkOpen();
        IbvMr mr;
        try {
            mr = res.pd.regMr(buffer, Region.verbsAccess(access));
        } catch (VerbsException e) {
            throw new VirtuosoException(state == ConnectionState.ESTABLISHED ? Reason.VERBS : Reason.CLOSED,
                    "cannot register: " + e.getMessage(), e);
        }
        Region r = new Region(this, mr, access.isEmpty() ? Set.of(Access.LOCAL_WRITE) : access);
        regions.add(r);
        if (state != ConnectionState.ESTABLISHED) {
            r.close();
            throw closed();
        }
        return r;
    }

    void forget(Region r) {
        regions.remove(r);
    }

    /** Engine thread, at teardown. */
    void closeRegions() {
        for (Region r : regions) {
            r.close();
        }
    }

    private Region own(MemoryRegion m) {
        if (!(m instanceof Region r) || r.owner != this) {
            throw new IllegalArgumentException("region is not registered with this connection");
        }
        if (r.closed()) {
            throw new IllegalArgumentException("region is closed");
        }
        return r;
    }

    private static void checkRange(long offset, long length, long size, String what) {
        if (offset < 0 || length < 0 || offset > size || length > size - offset) {
            throw new IllegalArgumentException(what + " range [" + offset + ", +" + length + ") outside its "
                    + size + " bytes");
        }
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postWrite(long wrId, MemoryRegion local, long localOffset, long length, RemoteMemory remote,
            long remoteOffset) throws VirtuosoException {
        checkOpen();
        Region r = own(local);
        checkRange(localOffset, length, r.length(), "local");
        Objects.requireNonNull(remote, "remote");
        checkRange(remoteOffset, length, remote.length(), "remote");
        enqueue(RequestRing.WRITE, wrId, r, localOffset, length, remote.address() + remoteOffset, remote.rkey());
    }

    @Override
    public void postRead(long wrId, MemoryRegion local, long localOffset, long length, RemoteMemory remote,
            long remoteOffset) throws VirtuosoException {
        checkOpen();
        Region r = own(local);
        checkRange(localOffset, length, r.length(), "local");
        if (!r.can(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("MP_READ destination needs LOCAL_WRITE");
        }
        Objects.requireNonNull(remote, "remote");
        checkRange(remoteOffset, length, remote.length(), "remote");
        enqueue(RequestRing.READ, wrId, r, localOffset, length, remote.address() + remoteOffset, remote.rkey());
    }

    @Override
    public void postSend(long wrId, MemoryRegion local, long offset, long length) throws VirtuosoException {
        checkOpen();
        Region r = own(local);
        checkRange(offset, length, r.length(), "local");
        enqueue(RequestRing.SEND, wrId, r, offset, length, 0, 0);
        if (invoker != null) {
            invoker.invokeOnPost(engine); // the SEND leaves now if the pollers run the engine
        }
    }

    @Override
    public void postRecv(long wrId, MemoryRegion local, long offset, long length) throws VirtuosoException {
        checkOpen();
        Region r = own(local);
        checkRange(offset, length, r.length(), "local");
        if (!r.can(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("MP_RECV buffer needs LOCAL_WRITE");
        }
        enqueue(RequestRing.RECV, wrId, r, offset, length, 0, 0);
    }

    private void enqueue(int op, long wrId, Region r, long offset, long length, long remoteAddr, int rkey)
            throws VirtuosoException {
        AtomicInteger permits = op == RequestRing.RECV ? recvPermits : sendPermits;
        posters.incrementAndGet();
        try {
            checkOpen();
            int p;
            do {
                p = permits.get();
                if (p == 0) {
                    throw new VirtuosoException(Reason.QUEUE_FULL, options.maxOutstanding() + " "
                            + (op == RequestRing.RECV ? "receives" : "requests") + " outstanding");
                }
            } while (!permits.compareAndSet(p, p - 1));
            long t = requests.claim();
            if (t < 0) {
                permits.incrementAndGet();
                throw new VirtuosoException(Reason.QUEUE_FULL, "request ring full");
            }
            RequestRing.Request q = requests.slot(t);
            q.op = op;
            q.wrId = wrId;
            q.region = r;
            q.offset = offset;
            q.length = length;
            q.remoteAddr = remoteAddr;
            q.rkey = rkey;
            requests.publish(t);
        } finally {
            posters.decrementAndGet();
        }
        engine.wake();
    }

    private void checkOpen() throws VirtuosoException {
        if (state != ConnectionState.ESTABLISHED) {
            throw closed();
        }
    }

    private VirtuosoException closed() {
        String why = endReason;
        return new VirtuosoException(Reason.CLOSED, "connection " + id + " is " + state
                + (why != null ? " (" + why + ")" : ""));
    }

    @Override
    public String endReason() {
        return endReason;
    }

    /** Engine thread, at the start of a teardown: why the connection ends. */
    void ending(String reason) {
        endReason = reason;
    }

    /**
     * Any thread (the engine's teardown, a disconnect, the connector's close): no post may enter after
     * this returns. Only an established connection changes state here, so a teardown that ended it
     * (CLOSED, FAILED) meanwhile is never overwritten with CLOSING.
     */
    void stopPosting(ConnectionState s) {
        STATE.compareAndSet(this, ConnectionState.ESTABLISHED, s);
        while (posters.get() != 0) {
            Thread.onSpinWait();
        }
    }

    void state(ConnectionState s, String reason) {
        endReason = reason;
        state = s;
        synchronized (waitLock) {
            waitLock.notifyAll();
        }
    }

    // ---------------------------------------------------------------- completions

    /** Engine thread: publishes one completion. */
    void complete(long wrId, MpOpcode op, MpStatus status, long bytes, int paths, String detail) {
        if (!completions.offer(wrId, op, status, bytes, paths, detail)) {
            throw new IllegalStateException("completion ring overflow");
        }
        // Dekker with awaitCompletion (waiters++, then poll): the ring's release store must be
        // visible before waiters is read, or a waiter that blocked just now sleeps to its timeout
        VarHandle.fullFence();
        if (waiters > 0) {
            synchronized (waitLock) {
                notifiedAt = System.nanoTime();
                waitLock.notifyAll();
            }
        }
    }

    private void release(MpCompletion c) {
        (c.opcode() == MpOpcode.RECV ? recvPermits : sendPermits).incrementAndGet();
    }

    /** Polling thread: runs the engine's duty cycle here if the engine runs on polls. */
    private void invokeEngine() {
        if (invoker != null) {
            invoker.invoke(engine);
        }
    }

    /** Thread about to block on the engine: its agent's thread takes the duty cycles back. */
    private void handBackEngine() {
        if (invoker != null) {
            invoker.handBack();
        }
    }

    @Override
    public int pollCompletions(MpCompletion[] out) {
        invokeEngine();
        int n = 0;
        while (n < out.length && completions.poll(out[n])) {
            release(out[n]);
            n++;
        }
        return n;
    }

    @Override
    public boolean awaitCompletion(MpCompletion out, long timeout, TimeUnit unit) throws InterruptedException {
        if (completions.poll(out)) {
            release(out);
            return true;
        }
        long start = System.nanoTime();
        long deadline = start + unit.toNanos(timeout);
        int shift = awaitSpinShift;
        long spinEnd = start + Math.min(AWAIT_SPIN_NANOS >> shift, unit.toNanos(timeout));
        for (int spins = 0; spinEnd - System.nanoTime() > 0; spins++) {
            invokeEngine();
            if (completions.poll(out)) {
                release(out);
                awaitSpinShift = 0;
                return true;
            }
            if (spins < AWAIT_BUSY_SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        handBackEngine();
        synchronized (waitLock) {
            waiters++;
            try {
                while (true) {
                    if (completions.poll(out)) {
                        release(out);
                        // when it came, not when this thread woke: the spin would have caught it then
                        long came = notifiedAt - start > 0 ? notifiedAt : System.nanoTime();
                        awaitSpinShift = IdleShift.next(shift, came - start, AWAIT_SPIN_NANOS);
                        return true;
                    }
                    long now = System.nanoTime();
                    long left = deadline - now;
                    if (left <= 0 || (state == ConnectionState.CLOSED || state == ConnectionState.FAILED)
                            && !completions.nonEmpty() && engine.finished()) {
                        if (now - start > AWAIT_SPIN_NANOS) {
                            awaitSpinShift = IdleShift.next(shift, now - start, AWAIT_SPIN_NANOS);
                        }
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(waitLock, left);
                }
            } finally {
                waiters--;
            }
        }
    }

    /** @return the current shrink of the await spin (tests) */
    int awaitSpinShift() {
        return awaitSpinShift;
    }

    /** @param shift the shrink of the await spin from now on (tests: to make waiters block at once) */
    void awaitSpinShift(int shift) {
        awaitSpinShift = shift;
    }

    // ---------------------------------------------------------------- paths and policies

    @Override
    public List<PathStats> pathStats() {
        if (engine.finished()) {
            return engine.finalStats();
        }
        CompletableFuture<List<PathStats>> f = new CompletableFuture<>();
        engine.command(e -> f.complete(e.pathStatsNow()));
        handBackEngine();
        try {
            return answer(f, COMMAND_TIMEOUT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return engine.finalStats();
        } catch (ExecutionException | TimeoutException | EngineEnded e) {
            return engine.finalStats();
        }
    }

    @Override
    public int addPath(InetAddress local, InetAddress remote) throws VirtuosoException {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(remote, "remote");
        checkOpen();
        CompletableFuture<Integer> f = new CompletableFuture<>();
        engine.command(e -> e.paths().requestAdd(local, remote, f, System.nanoTime()));
        return await(f, options.handshakeTimeout().toMillis() + COMMAND_TIMEOUT_MILLIS);
    }

    @Override
    public void removePath(int pathId) throws VirtuosoException {
        checkOpen();
        CompletableFuture<Void> f = new CompletableFuture<>();
        engine.command(e -> e.paths().requestRemove(pathId, f, System.nanoTime()));
        await(f, COMMAND_TIMEOUT_MILLIS);
    }

    /** The engine ended without running a command (it came as the engine finished). */
    private static final class EngineEnded extends Exception {
        private static final long serialVersionUID = 1L;

        EngineEnded() {
            super(null, null, false, false);
        }
    }

    /**
     * An engine command's answer, waited for in slices of at most {@value #COMMAND_SLICE_MILLIS} ms
     * so that an engine that finished without running the command is seen at once, not at the
     * timeout.
     */
    private <T> T answer(CompletableFuture<T> f, long millis)
            throws InterruptedException, ExecutionException, TimeoutException, EngineEnded {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                return f.get(Math.max(0, Math.min(left, TimeUnit.MILLISECONDS.toNanos(COMMAND_SLICE_MILLIS))),
                        TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // finished is set after the last command ran: a command still unanswered then never will be
                if (engine.finished() && !f.isDone()) {
                    throw new EngineEnded();
                }
                if (deadline - System.nanoTime() <= 0) {
                    throw e;
                }
            }
        }
    }

    private <T> T await(CompletableFuture<T> f, long millis) throws VirtuosoException {
        handBackEngine();
        try {
            return answer(f, millis);
        } catch (EngineEnded e) {
            throw new VirtuosoException(Reason.CLOSED, "connection ended (" + endReason + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VirtuosoException(Reason.TIMEOUT, "interrupted", e);
        } catch (TimeoutException e) {
            throw new VirtuosoException(Reason.TIMEOUT, "engine did not answer in " + millis + " ms", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof VirtuosoException v) {
                throw new VirtuosoException(v.reason(), v.getMessage(), v);
            }
            if (e.getCause() instanceof IllegalArgumentException iae) {
                throw new IllegalArgumentException(iae.getMessage(), iae);
            }
            throw new VirtuosoException(Reason.CLOSED, String.valueOf(e.getCause()), e.getCause());
        }
    }

    @Override
    public String loadBalancer() {
        return engine.policies().loadBalancer();
    }

    @Override
    public void setLoadBalancer(String name) throws VirtuosoException {
        Objects.requireNonNull(name, "name");
        checkOpen();
        if (!PolicyBinder.lbAvailable(engine.registry(), name)) {
            throw new VirtuosoException(Reason.UNKNOWN_POLICY, "no load balancer named " + name);
        }
        engine.policies().announceLoadBalancer(name);
        engine.command(e -> e.policies().useLoadBalancer(name));
    }

    @Override
    public String congestionAvoidance() {
        return engine.policies().congestionAvoidance();
    }

    @Override
    public void setCongestionAvoidance(String name) throws VirtuosoException {
        Objects.requireNonNull(name, "name");
        checkOpen();
        if (!PolicyBinder.ccAvailable(engine.registry(), name)) {
            throw new VirtuosoException(Reason.UNKNOWN_POLICY, "no congestion avoidance named " + name);
        }
        engine.policies().announceCongestionAvoidance(name);
        engine.command(e -> e.policies().useCongestionAvoidance(name));
    }

    // ---------------------------------------------------------------- closing

    @Override
    public void disconnect(long timeout, TimeUnit unit) {
        engine.requestClose(unit.toNanos(timeout));
        handBackEngine();
        engine.join(unit.toMillis(timeout) + COMMAND_TIMEOUT_MILLIS);
    }

    @Override
    public void close() {
        disconnect(5, TimeUnit.SECONDS);
    }

    /** @return the engine's state in one line, for diagnostics */
    public String describe() {
        if (engine.finished()) {
            return state + " (" + endReason + ") at the end: " + engine.finalDescription();
        }
        CompletableFuture<String> f = new CompletableFuture<>();
        engine.command(e -> f.complete(e.describe()));
        handBackEngine();
        try {
            return answer(f, COMMAND_TIMEOUT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (EngineEnded e) {
            return state + " (" + endReason + ") at the end: " + engine.finalDescription();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "connection " + id + ": engine does not answer", e);
            return "engine does not answer: " + e;
        }
    }

    /** @return the engine (tests and statistics) */
    ConnectionEngine engine() {
        return engine;
    }

    @Override
    public String toString() {
        return "MpConnection[" + id + ", " + state + ", peer " + remoteBootstrap + "]";
    }
}
