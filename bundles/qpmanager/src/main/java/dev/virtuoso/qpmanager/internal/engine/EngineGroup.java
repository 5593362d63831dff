package dev.virtuoso.qpmanager.internal.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;

/**
 * A fixed set of engine agents serving every connection of a connector (Aeron's agents, Netty's
 * event loop group): the number of engine threads does not grow with the number of connections.
 * A new connection goes to the least loaded agent (ties: round robin) and stays there; that agent's
 * thread alone touches its state. Each agent runs on an Agrona {@link AgentRunner} with its own
 * thread {@code virtuoso-engine-<n>}; the group's owner stops them with {@link #close(long)}.
 *
 * <p>With {@code invokeOnPoll}, an application thread polling a connection's completions runs that
 * connection's agent's duty cycle itself and the agent's thread stands back meanwhile (Aeron's agent
 * invoker; see {@link EngineAgent}): a request-response exchange then crosses no engine thread.
 */
public final class EngineGroup implements AutoCloseable {
    /** Agents when none are configured: the machine's processors, at most 4. */
    public static int defaultSize() {
        return Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 4));
    }

    private static final System.Logger LOG = System.getLogger(EngineGroup.class.getName());
    private static final long DEFAULT_CLOSE_MILLIS = 5000;

    private final long activeSpinNanos;
    private final boolean invokeOnPoll;
    private final EngineAgent[] agents;
    private final AgentRunner[] runners;
    private final Thread[] threads;
    private final AtomicInteger nextTie = new AtomicInteger();
    private final AtomicLong errors = new AtomicLong();
    private volatile boolean closed;

    /** Backoff window after data-path work when none is configured (see {@link #EngineGroup(int, long)}). */
    public static final long DEFAULT_ACTIVE_SPIN_NANOS = EngineAgent.ACTIVE_SPIN_NANOS;

    /** @param size number of agents (threads), at least 1 */
    public EngineGroup(int size) {
        this(size, EngineAgent.WAKE_QUEUE, DEFAULT_ACTIVE_SPIN_NANOS, false);
    }

    /**
     * @param size number of agents (threads), at least 1
     * @param activeSpinNanos how long a connection stays running (its agent spinning, its CQ polled)
     *     after its last data-path work before it may go quiet; 0: after a few idle duty cycles
     */
    public EngineGroup(int size, long activeSpinNanos) {
        this(size, EngineAgent.WAKE_QUEUE, activeSpinNanos, false);
    }

    /**
     * @param size number of agents (threads), at least 1
     * @param activeSpinNanos see {@link #EngineGroup(int, long)}
     * @param invokeOnPoll application threads polling a connection's completions run its agent's duty
     *     cycles (the agent's thread stands back while they do)
     */
    public EngineGroup(int size, long activeSpinNanos, boolean invokeOnPoll) {
        this(size, EngineAgent.WAKE_QUEUE, activeSpinNanos, invokeOnPoll);
    }

    /** @param wakeQueue capacity of each agent's wake-up queue (tests make it small to overflow it) */
    static EngineGroup withWakeQueue(int size, int wakeQueue) {
        return new EngineGroup(size, wakeQueue, DEFAULT_ACTIVE_SPIN_NANOS, false);
    }

    private EngineGroup(int size, int wakeQueue, long activeSpinNanos, boolean invokeOnPoll) {
        if (size < 1) {
            throw new IllegalArgumentException("an engine group needs at least one agent: " + size);
        }
        if (activeSpinNanos < 0) {
            throw new IllegalArgumentException("negative backoff window: " + activeSpinNanos);
        }
        this.activeSpinNanos = activeSpinNanos;
        this.invokeOnPoll = invokeOnPoll;
        agents = new EngineAgent[size];
        runners = new AgentRunner[size];
        threads = new Thread[size];
        for (int i = 0; i < size; i++) {
            agents[i] = new EngineAgent(i, wakeQueue, activeSpinNanos, invokeOnPoll, this::error);
            runners[i] = new AgentRunner(new EngineIdleStrategy(agents[i]), this::error, null, agents[i]);
        }
        for (int i = 0; i < size; i++) {
            EngineAgent a = agents[i];
            threads[i] = AgentRunner.startOnThread(runners[i], r -> {
                Thread t = new Thread(r, a.roleName());
                t.setDaemon(true);
                return t;
            });
        }
    }

    private void error(Throwable t) {
        // a connection's own failures end that connection inside its duty cycle; this is the agent's
        if (t instanceof AgentTerminationException) {
            return; // the agent's own way to stop when the group closes (Agrona reports it here too)
        }
        errors.incrementAndGet();
        LOG.log(System.Logger.Level.ERROR, "engine agent failure", t);
    }

    /** @return the backoff window after data-path work, nanoseconds */
    public long activeSpinNanos() {
        return activeSpinNanos;
    }

    /** @return agent {@code i} (tests) */
    EngineAgent agent(int i) {
        return agents[i];
    }

    /** @return whether application threads polling completions run the agents' duty cycles */
    public boolean invokeOnPoll() {
        return invokeOnPoll;
    }

    /** @return duty cycles application threads ran so far ({@link #invokeOnPoll()}) */
    public long invokes() {
        return sum(EngineAgent::invokes);
    }

    /** @return times the agents' threads stood back for application threads running their duty cycles */
    public long standBacks() {
        return sum(EngineAgent::standBacks);
    }

    /** @return the counter summed over the agents */
    private long sum(ToLongFunction<EngineAgent> counter) {
        long n = 0;
        for (EngineAgent a : agents) {
            n += counter.applyAsLong(a);
        }
        return n;
    }

    /** @return the number of agents */
    public int size() {
        return agents.length;
    }

    /** @return failures of the agents themselves (not of their connections); 0 normally */
    public long agentErrors() {
        return errors.get();
    }

    /** @return the agents' threads that are alive now (the CQ event threads not included) */
    public List<Thread> threads() {
        List<Thread> out = new ArrayList<>();
        for (Thread t : threads) {
            if (t.isAlive()) {
                out.add(t);
            }
        }
        return out;
    }

    /** @return connections per agent, in agent order */
    public int[] loads() {
        int[] out = new int[agents.length];
        for (int i = 0; i < agents.length; i++) {
            out[i] = agents[i].load();
        }
        return out;
    }

    /** @return connection duty cycles run by all agents so far (grows only while some connection runs) */
    public long duties() {
        return sum(EngineAgent::duties);
    }

    /**
     * @return completion events the agents' CQ event threads handed on so far (a connection that is
     *     still running polls its CQ itself and gets none)
     */
    public long completionEvents() {
        return sum(EngineAgent::completionEvents);
    }

    /** @return times the agents parked so far (each ended by a wake-up from another thread or a timer) */
    public long parks() {
        return sum(EngineAgent::parks);
    }

    /** @return wake-ups that found an agent's queue full (served by a scan instead) */
    long wakeOverflows() {
        return sum(EngineAgent::overflows);
    }

    /** @return devices the agents hold open now, each with one completion channel and event thread */
    public int openDevices() {
        return Math.toIntExact(sum(EngineAgent::openDevices));
    }

    boolean isClosed() {
        return closed;
    }

    /** Picks the agent of a new connection (least loaded, ties round robin) and counts it there. */
    EngineAgent assign() {
        int start = Math.floorMod(nextTie.getAndIncrement(), agents.length);
        EngineAgent best = null;
        for (int k = 0; k < agents.length; k++) {
            EngineAgent a = agents[(start + k) % agents.length];
            if (best == null || a.load() < best.load()) {
                best = a;
            }
        }
        best.assign();
        return best;
    }

    @Override
    public void close() {
        close(DEFAULT_CLOSE_MILLIS);
    }

    /**
     * Stops every agent: each fails the connections it still serves (normally none: the connector
     * disconnects them first) and closes its devices. Waits at most {@code timeoutMillis} for all
     * threads together, then interrupts the ones left.
     *
     * @return true if every agent thread ended within the timeout
     */
    public boolean close(long timeoutMillis) {
        closed = true;
        for (EngineAgent a : agents) {
            a.stop();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        boolean all = true;
        for (int i = 0; i < agents.length; i++) {
            Thread t = threads[i];
            if (t != Thread.currentThread()) {
                try {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (t.isAlive()) {
                    all = false;
                    LOG.log(System.Logger.Level.WARNING, t.getName() + " did not stop within " + timeoutMillis
                            + " ms; interrupting it");
                    t.interrupt();
                    continue;
                }
            }
            runners[i].close();
            agents[i].onClose(); // idempotent: releases what the runner left, if anything
        }
        return all;
    }
}
