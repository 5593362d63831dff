package dev.virtuoso.qpmanager.internal.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.util.DutyClaim;
import dev.virtuoso.util.InvokerLease;

/**
 * One engine agent ({@code virtuoso-engine-<n>}): serves many connections, each of whose
 * {@link ConnectionEngine} it alone runs. A connection is <em>running</em> while it has work or had
 * some a few duty cycles ago; then it arms its CQ (on the agent's shared completion channel) and
 * goes <em>quiet</em>: it is not looked at again until something wakes it (a completion event, a
 * posted request, a command, control bytes) or its own timer is due (drain deadline, a path timer,
 * the monitor's housekeeping). With every connection quiet the agent parks until the nearest timer.
 *
 * <p>Backoff after data-path work: a connection that posted requests or polled completions in the
 * last {@code activeSpinNanos} stays running (its CQ polled, not armed) however many idle cycles it
 * has, so the next request or completion of a request-response exchange is picked up by the
 * spinning agent, without the completion channel's event thread and without unparking the agent
 * (two thread wake-ups each way). Only data-path work opens that window: heartbeats, commands and
 * timers do not, so an open, quiet connection still costs no CPU.
 *
 * <p>Other threads wake a connection through {@link #schedule}: a lock-free many-to-one queue of
 * engines (each queued at most once), so waking allocates nothing.
 *
 * <p>Run by the application ({@code invokeOnPoll}, Aeron's agent invoker): an application thread
 * polling a connection's completions runs the agent's duty cycle itself ({@link #invoke}), so a
 * request or a completion crosses no thread hand-off; the agent's own thread then stands back (parks
 * without spinning) until no application thread has invoked it for {@link #INVOKER_LEASE_NANOS}, or
 * until one that is about to block hands the duty back ({@link #handBack}). Whichever thread runs a
 * duty cycle holds the agent's claim for it, so the agent's state still has one owner at a time and
 * the claim's release publishes it to the next. Without {@code invokeOnPoll} the agent's thread is
 * the only one that ever runs a duty cycle and takes no claim.
 */
final class EngineAgent implements Agent {
    /** Idle duty cycles after which a running connection arms its CQ and then goes quiet. */
    static final int QUIET_AFTER_CYCLES = 24;
    /** Default of the backoff window after data-path work (see the class comment). */
    static final long ACTIVE_SPIN_NANOS = 250_000L;
    /** Longest park of an agent with no timer at all. */
    static final long MAX_SLEEP_NANOS = 1_000_000_000L;
    /** Wake-up queue of an agent: when full, wakers set a flag and the agent scans its connections. */
    static final int WAKE_QUEUE = 4096;
    /** How long the agent's thread stands back after an application thread ran a duty cycle. */
    static final long INVOKER_LEASE_NANOS = 1_000_000L;
    /**
     * Duty cycles application threads must have run per lease for the agent's thread to stand back:
     * a thread that polls only now and then would otherwise leave the agent's other connections
     * waiting for its polls.
     */
    static final int MIN_INVOKES_PER_LEASE = 20;

    private final int index;
    private final String name;
    private final long activeSpinNanos;
    private final boolean invokeOnPoll;
    private final ErrorHandler errorHandler;
    private final ManyToOneConcurrentArrayQueue<ConnectionEngine> woken;
    private final ConcurrentLinkedQueue<ConnectionEngine> added = new ConcurrentLinkedQueue<>();
    private final AtomicInteger load = new AtomicInteger();
    /** Connection duty cycles run so far (single writer: the agent; read by statistics and tests). */
    private final AtomicLong duties = new AtomicLong();
    /** Times the agent parked (single writer: the agent; read by statistics and tests). */
    private final AtomicLong parks = new AtomicLong();
    /** Completion events the CQ event threads of this agent's devices handed on. */
    private final AtomicLong completionEvents = new AtomicLong();
    /** Guarded by itself. */
    private final Map<String, SharedDevice> devices = new HashMap<>();
    private volatile boolean overflow;
    private final AtomicLong overflows = new AtomicLong();
    private volatile boolean sleeping;
    private volatile boolean stopping;
    private volatile Thread thread;
    /** Held by whichever thread runs a duty cycle (the agent's or an invoking application thread). */
    private final DutyClaim claim = new DutyClaim();
    /** When the agent's thread stands back for application threads (see the class comment). */
    private final InvokerLease lease = new InvokerLease(INVOKER_LEASE_NANOS, MIN_INVOKES_PER_LEASE);
    /** Duty cycles application threads ran (single writer at a time: the claim holder). */
    private final AtomicLong invokes = new AtomicLong();
    /** Times the agent's thread stood back for application threads (agent thread only). */
    private final AtomicLong standBacks = new AtomicLong();
    /** True while the agent's thread parks to stand back for application threads. */
    private volatile boolean standingBack;
    /** Written by the claim holder as it releases, read by the agent's idle strategy. */
    private volatile boolean busyHint;
    private volatile long nextTimerHint = Long.MAX_VALUE;
    // ---- agent thread only
    private final List<ConnectionEngine> all = new ArrayList<>();
    private final List<ConnectionEngine> running = new ArrayList<>();
    private final List<ConnectionEngine> timed = new ArrayList<>();
    private long nextTimer = Long.MAX_VALUE;

    EngineAgent(int index, int wakeQueue, long activeSpinNanos) {
        this(index, wakeQueue, activeSpinNanos, false, t -> System.getLogger(EngineAgent.class.getName())
                .log(System.Logger.Level.ERROR, "engine duty cycle failed on an application thread", t));
    }

    /**
     * @param invokeOnPoll whether application threads may run this agent's duty cycles ({@link #invoke})
     * @param errorHandler gets a failure of a duty cycle an application thread ran (it is not thrown at
     *     the application)
     */
    EngineAgent(int index, int wakeQueue, long activeSpinNanos, boolean invokeOnPoll, ErrorHandler errorHandler) {
        if (activeSpinNanos < 0) {
            throw new IllegalArgumentException("negative backoff window: " + activeSpinNanos);
        }
        this.index = index;
        this.invokeOnPoll = invokeOnPoll;
        this.errorHandler = errorHandler;
        this.activeSpinNanos = activeSpinNanos;
        this.woken = new ManyToOneConcurrentArrayQueue<>(wakeQueue);
        this.name = "virtuoso-engine-" + index;
    }

    @Override
    public String roleName() {
        return name;
    }

    int index() {
        return index;
    }

    /** @return connections assigned (being set up or established) */
    int load() {
        return load.get();
    }

    /** A connection set-up starts on this agent. */
    void assign() {
        load.incrementAndGet();
    }

    /** A connection assigned here failed to set up or released everything. */
    void unassign() {
        load.decrementAndGet();
    }

    Thread thread() {
        return thread;
    }

    /** @return wake-ups that found the queue full (the agent scanned its connections instead) */
    long overflows() {
        return overflows.get();
    }

    /** @return connection duty cycles this agent ran so far: stays put while every connection is quiet */
    long duties() {
        return duties.get();
    }

    /** @return completion events handed on by this agent's CQ event threads (each a thread hop) */
    long completionEvents() {
        return completionEvents.get();
    }

    /** @return whether application threads may run this agent's duty cycles */
    boolean invokeOnPoll() {
        return invokeOnPoll;
    }

    /** @return duty cycles application threads ran so far ({@code invokeOnPoll}) */
    long invokes() {
        return invokes.get();
    }

    /** @return times the agent's thread stood back for application threads running its duty cycles */
    long standBacks() {
        return standBacks.get();
    }

    /** @return true while the agent's thread stands back for application threads (tests) */
    boolean standingBack() {
        return standingBack;
    }

    /** @return true if the calling thread is running one of this agent's duty cycles now */
    boolean inDuty() {
        return invokeOnPoll ? claim.heldByCurrentThread() : thread == Thread.currentThread();
    }

    /** @return times this agent parked so far (each costs a wake-up by another thread to end) */
    long parks() {
        return parks.get();
    }

    // ---------------------------------------------------------------- devices

    /** @return this agent's shared context of the device, opened on first use; release it once */
    SharedDevice acquireDevice(VerbsProvider provider, String device) throws VirtuosoException {
        String key = System.identityHashCode(provider) + "/" + provider.name() + "/" + device;
        synchronized (devices) {
            SharedDevice d = devices.get(key);
            if (d == null) {
                d = SharedDevice.open(provider, device, "virtuoso-cqev-" + index + "-"
                        + (device == null ? "default" : device), completionEvents);
                devices.put(key, d);
            }
            d.references++;
            return d;
        }
    }

    void releaseDevice(SharedDevice d) {
        synchronized (devices) {
            if (--d.references > 0) {
                return;
            }
            devices.values().remove(d);
        }
        d.close();
    }

    /** @return devices open now (tests) */
    int openDevices() {
        synchronized (devices) {
            return devices.size();
        }
    }

    // ---------------------------------------------------------------- other threads

    /** Any thread: a new connection, run from the next duty cycle on. */
    void add(ConnectionEngine e) {
        added.add(e);
        unpark();
    }

    /** Any thread, once per wake-up of a quiet connection (the engine's flag makes it once). */
    void schedule(ConnectionEngine e) {
        if (!woken.offer(e)) {
            overflows.incrementAndGet();
            overflow = true;
        }
        unpark();
    }

    private void unpark() {
        if (sleeping) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Any thread: the agent stops at its next duty cycle (see {@link EngineGroup#close}). */
    void stop() {
        stopping = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    // ---------------------------------------------------------------- agent thread

    @Override
    public void onStart() {
        thread = Thread.currentThread();
    }

    @Override
    public int doWork() {
        if (stopping) {
            throw new AgentTerminationException("engine group closing");
        }
        if (!invokeOnPoll) {
            return duty(System.nanoTime()); // this thread is the only one that ever runs a duty cycle
        }
        if (!claim()) {
            return 0; // an application thread is running the duty cycle
        }
        try {
            return duty(System.nanoTime());
        } finally {
            release();
        }
    }

    // ---------------------------------------------------------------- application threads (invokeOnPoll)

    /**
     * Application thread: runs one duty cycle here unless another thread is running one, and keeps
     * the agent's thread standing back. Does nothing unless the group runs on application polls.
     * A failure is reported to the error handler, not thrown at the application. The connection it
     * polls ({@code polled}, null if none) is not made quiet (CQ armed, left to events) while the
     * polls go on: arming a soft RNIC's CQ hands the device's cycles back to its
     * own thread, which then competed with the spinning pollers for the cores.
     *
     * @param polled the connection polled, or null
     * @return work done (0 if not invokable, stopping, or another thread holds the claim)
     */
    int invoke(ConnectionEngine polled) {
        if (!invokeOnPoll || stopping) {
            return 0;
        }
        long now = System.nanoTime();
        if (polled != null) {
            polled.polled(now);
        }
        lease.renew(now);
        if (!claim()) {
            return 0;
        }
        try {
            invokes.lazySet(invokes.get() + 1);
            return duty(now);
        } catch (Throwable t) {
            errorHandler.onError(t);
            return 0;
        } finally {
            release();
        }
    }

    /**
     * Application thread that posted a request to {@code e}: while the agent's thread stands back
     * for the pollers, runs {@code e}'s posting cycle at once, so the request leaves in the post (as
     * a doorbell starts a transfer) rather than at the thread's next poll. Otherwise the agent's
     * thread takes it.
     */
    void invokeOnPost(ConnectionEngine e) {
        if (!standingBack || stopping) {
            return;
        }
        lease.renew(System.nanoTime());
        if (claim()) {
            try {
                invokes.lazySet(invokes.get() + 1);
                e.post();
            } catch (Throwable t) {
                errorHandler.onError(t);
            } finally {
                release();
            }
        } else if (claim.defer()) {
            // the holder of a moment ago may have been past taking requests, and may not poll again
            // soon: the request is deferred to whoever holds the claim next; here, this thread
            postDeferred();
            release();
        }
    }

    /**
     * Application thread about to block (or to stop polling): the agent's thread runs the duty
     * cycles again from now on, without waiting for the lease to run out.
     */
    void handBack() {
        if (invokeOnPoll) {
            lease.handBack(thread);
        }
    }

    private boolean claim() {
        return claim.claim();
    }

    /**
     * Releases the claim; then, while posts found it held meanwhile ({@link DutyClaim#defer}),
     * takes it back and runs their posting cycles, so a request posted during the last cycle of a
     * thread that stops polling does not wait for the agent's thread (up to a lease).
     */
    private void release() {
        publishHints();
        claim.release();
        while (claim.claimDeferred()) {
            postDeferred();
            publishHints();
            claim.release();
        }
    }

    private void publishHints() {
        // volatile writes only when a hint changes: each costs a full fence, on every poll
        boolean busy = !running.isEmpty();
        if (busyHint != busy) {
            busyHint = busy;
        }
        if (nextTimerHint != nextTimer) {
            nextTimerHint = nextTimer;
        }
    }

    /** Claim holder: the posting cycles of every connection, for posts that found the claim held. */
    private void postDeferred() {
        try {
            intake();
            for (int i = running.size() - 1; i >= 0; i--) {
                running.get(i).post();
            }
        } catch (Throwable t) {
            errorHandler.onError(t);
        }
    }

    // ---------------------------------------------------------------- whoever holds the claim

    private int duty(long now) {
        int work = intake();
        if (now - nextTimer >= 0) {
            work += timers(now);
        }
        if (!running.isEmpty()) {
            duties.lazySet(duties.get() + running.size());
        }
        for (int i = running.size() - 1; i >= 0; i--) {
            ConnectionEngine e = running.get(i);
            int w = e.duty(now);
            if (e.ended()) {
                removeAt(running, i).running = false;
                all.remove(e);
                work++;
            } else if (w > 0) {
                e.idleCycles = 0;
                work += w;
                if (e.takeDataWork()) {
                    e.activeUntil = now + activeSpinNanos;
                }
            } else if (++e.idleCycles >= QUIET_AFTER_CYCLES && now - e.activeUntil >= 0
                    && now - e.polledAt() >= INVOKER_LEASE_NANOS) { // not while a thread polls it
                if (e.armCq()) {
                    // armed now: poll once more before going quiet so an event that fired meanwhile is not lost
                    e.idleCycles = QUIET_AFTER_CYCLES - 1;
                } else if (e.quiet()) {
                    removeAt(running, i).running = false;
                    long at = e.timer(now);
                    if (at != Long.MAX_VALUE) {
                        e.timerAt = at;
                        if (!e.timed) {
                            e.timed = true;
                            timed.add(e);
                        }
                        nextTimer = Math.min(nextTimer, at);
                    }
                } else {
                    e.idleCycles = 0;
                }
            }
        }
        return work;
    }

    private int intake() {
        int n = 0;
        ConnectionEngine e;
        while ((e = added.poll()) != null) {
            all.add(e);
            activate(e);
            n++;
        }
        while ((e = woken.poll()) != null) {
            activate(e);
            n++;
        }
        if (overflow) {
            overflow = false;
            for (ConnectionEngine c : all) {
                if (c.queued()) {
                    activate(c);
                }
            }
        }
        return n;
    }

    private void activate(ConnectionEngine e) {
        if (!e.running && !e.ended()) {
            e.running = true;
            e.idleCycles = 0;
            running.add(e);
        }
    }

    private int timers(long now) {
        int n = 0;
        nextTimer = Long.MAX_VALUE;
        for (int i = timed.size() - 1; i >= 0; i--) {
            ConnectionEngine e = timed.get(i);
            if (e.running || e.ended()) {
                removeAt(timed, i).timed = false;
            } else if (now - e.timerAt >= 0) {
                removeAt(timed, i).timed = false;
                activate(e);
                n++;
            } else {
                nextTimer = Math.min(nextTimer, e.timerAt);
            }
        }
        return n;
    }

    private static ConnectionEngine removeAt(List<ConnectionEngine> l, int i) {
        ConnectionEngine e = l.get(i);
        int last = l.size() - 1;
        l.set(i, l.get(last));
        l.remove(last);
        return e;
    }

    /** Agent thread, from the idle strategy: true while some connection is running (do not sleep). */
    boolean busy() {
        return invokeOnPoll ? busyHint : !running.isEmpty();
    }

    /**
     * Agent thread, from the idle strategy: while application threads keep running the duty
     * cycles, parks until their lease runs out (or they hand back) instead of spinning beside them.
     *
     * @return true if it stood back (the strategy then starts over)
     */
    boolean standBack() {
        if (!invokeOnPoll || stopping) {
            return false;
        }
        long left = lease.standBackNanos(System.nanoTime(), invokes.get());
        if (left == 0) {
            return false;
        }
        standBacks.lazySet(standBacks.get() + 1);
        standingBack = true;
        // parks again while the lease runs rather than returning to a duty cycle between terms:
        // that cycle would take the claim from the pollers and their state across the cores
        do {
            LockSupport.parkNanos(this, left);
        } while (!stopping && (left = lease.standBackNanos(System.nanoTime(), invokes.get())) > 0);
        standingBack = false;
        return true;
    }

    /** Agent thread, from the idle strategy: parks until woken or the nearest timer. */
    void sleep() {
        long wait = Math.min((invokeOnPoll ? nextTimerHint : nextTimer) - System.nanoTime(), MAX_SLEEP_NANOS);
        if (wait <= 0) {
            return;
        }
        sleeping = true;
        if (woken.isEmpty() && added.isEmpty() && !overflow && !stopping) {
            parks.lazySet(parks.get() + 1);
            LockSupport.parkNanos(this, wait);
        }
        sleeping = false;
    }

    /** Agent thread, after the runner stopped: fails what is left (normally nothing). */
    @Override
    public void onClose() {
        // an application thread that entered invoke before the stop may still be in a duty cycle
        long giveUp = System.nanoTime() + 1_000_000_000L;
        while (!claim()) {
            if (System.nanoTime() - giveUp > 0) {
                errorHandler.onError(new IllegalStateException(name + ": a duty cycle did not end within 1 s"));
                return;
            }
            Thread.yield();
        }
        try {
            closeAll();
        } finally {
            release();
        }
    }

    private void closeAll() {
        ConnectionEngine e;
        while ((e = added.poll()) != null) {
            all.add(e);
        }
        for (ConnectionEngine c : all) {
            c.abort("engine group stopped");
        }
        all.clear();
        running.clear();
        timed.clear();
        List<SharedDevice> left;
        synchronized (devices) {
            left = new ArrayList<>(devices.values());
            devices.clear();
        }
        for (SharedDevice d : left) {
            d.close();
        }
    }
}
