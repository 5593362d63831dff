package dev.virtuoso.qpmanager.internal.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.decomposer.ChunkObserver;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.pathmonitor.api.ChunkLimits;
import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.pathmonitor.api.PathStatistics;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.qpmanager.internal.bootstrap.Fields;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * One connection's side of the path monitor contract: feeds the monitor (if one is bound) with the
 * engine's events in the documented order, posts the probe WRITEs it asks for from this side's
 * scratch region to the peer's, routes their completions back to it, and overlays its statistics
 * on {@link PathStats}. Engine thread only, except {@link #requestDetach} and
 * {@link #awaitDetached}.
 *
 * <p>When the monitor's factory goes away (or the monitor throws), the connection moves back to
 * the core's own view at the next duty cycle: the policy sessions are re-created over the
 * {@link PathTable}, then the monitor is closed and never called again. The scratch region and the
 * probe bookkeeping stay until the connection ends, so late probe completions are recognised.
 *
 * <p>Connect-time probes are staggered: a link is full duplex with a queue per direction, so a
 * side's probe ACKs would queue behind the other side's probe flow and arrive bunched. The
 * connecting side probes at once and sends PROBES_DONE when its connect-time flows are over; the
 * accepting side's monitor is created with {@code pathmonitor.probeOnPathAdded=false} and its
 * paths are probed ({@code requestProbe}) when PROBES_DONE arrives, or after
 * {@link #PEER_PROBES_WAIT_NANOS} without it.
 *
 * <p>Probe results are shared between the connector's connections per path pair
 * ({@link SharedCapacities}): a new path whose pair has an entry is offered it
 * ({@code PathMonitor.seedCapacity}); a path the monitor takes it for is not probed at connect
 * (on the accepting side the link does not ask), and each capacity the monitor measures itself
 * ({@code capacityMeasurements} grows, connect-time or later) replaces the entry.
 */
final class PathMonitorLink implements ChunkObserver, PathEvents, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PathMonitorLink.class.getName());
    /** Bound on probe WRITEs posted in one duty cycle (a flow is a handful of WRs per path). */
    private static final int MAX_PROBES_PER_CYCLE = 64;
    private static final int PROBE_SLOTS = 256;
    /** Most the accepting side defers its connect-time probes waiting for the peer's PROBES_DONE. */
    static final long PEER_PROBES_WAIT_NANOS = 2_000_000_000L;
    /** Monitor property the accepting side's monitor is created with (see the class comment). */
    static final String DEFER_PROBES_PROPERTY = PathMonitorFactory.PROPERTY_PREFIX + "probeOnPathAdded";

    /** Connect-time probe stagger: where this side stands. */
    private enum Stagger {
        /** Connecting side, its connect-time probe flows running. */
        PROBING,
        /** Connecting side, flows over, PROBES_DONE not yet written (control ring full). */
        TELL_PEER,
        /** Accepting side, waiting for PROBES_DONE or the deadline. */
        WAITING,
        /** Nothing to do any more. */
        DONE
    }

    private final String connectionId;
    private final PathTable table;
    private final PathManager paths;
    private final IbvMr scratch;
    private final ScratchRegion peerScratch;
    private final PathMonitorFactory factory;
    private final ProbeTable probes = new ProbeTable(PROBE_SLOTS);
    private final ProbeRequest request = new ProbeRequest();
    private final PathStatistics statistics = new PathStatistics();
    private final boolean[] usable;
    /** The connector's probe results of this device, or {@code null}: not shared. */
    private final SharedCapacities.Scope shared;
    /** Per path: its pair (set when added). */
    private final SharedCapacities.PathPair[] pairs;
    /** Per path: it started with a shared capacity (not probed at connect). */
    private final boolean[] seeded;
    /** Per path: the monitor's {@code capacityMeasurements} last shared. */
    private final long[] measurementsShared;
    private long capacitiesSeeded;
    /** Slots the monitor has heard of through onPathAdded (reused slots are not added twice). */
    private int announced;
    private final ControlWriter control;
    private final boolean connecting;
    private final long peerProbesDeadline;
    private Stagger stagger;
    private volatile boolean peerProbesDone;
    private volatile long peerProbesTimeouts;
    private final CountDownLatch detached = new CountDownLatch(1);
    private Decomposition decomposition;
    private PolicyBinder policies;
    private PathMonitor monitor;
    private volatile boolean detachRequested;
    private long now = System.nanoTime();
    private long probesPosted;
    private long probesRefused;
    private long probeErrors;
    private long staleProbeCompletions;
    private long monitorFaults;
    private String lastFault;

    /**
     * @param connectionId for diagnostics
     * @param table the core's own view
     * @param paths posts probe WRITEs and is told of probe failures
     * @param scratch this side's scratch region (probe source); closed with this link
     * @param peerScratch the peer's advertised scratch region (probe target)
     * @param monitor the connection's monitor, or {@code null} (the core's view is used)
     * @param factory the factory that created {@code monitor}, or {@code null}
     * @param control writes PROBES_DONE (connecting side)
     * @param connecting whether this side connected (it probes first) or accepted
     * @param shared the connector's probe results of this device, or {@code null}
     */
    PathMonitorLink(String connectionId, PathTable table, PathManager paths, IbvMr scratch, ScratchRegion peerScratch,
            PathMonitor monitor, PathMonitorFactory factory, ControlWriter control, boolean connecting,
            SharedCapacities.Scope shared) {
        this.connectionId = connectionId;
        this.table = table;
        this.paths = paths;
        this.scratch = scratch;
        this.peerScratch = peerScratch;
        this.monitor = monitor;
        this.factory = factory;
        this.usable = new boolean[table.capacity()];
        this.shared = shared;
        this.pairs = new SharedCapacities.PathPair[table.capacity()];
        this.seeded = new boolean[table.capacity()];
        this.measurementsShared = new long[table.capacity()];
        this.control = control;
        this.connecting = connecting;
        this.stagger = connecting ? Stagger.PROBING : Stagger.WAITING;
        this.peerProbesDeadline = now + PEER_PROBES_WAIT_NANOS;
        if (monitor == null) {
            detached.countDown();
        }
    }

    /**
     * @param policyProperties the connection's policy properties
     * @param connecting whether this side connected
     * @return the properties to create this side's monitor with: on the accepting side, with
     *     added paths not probed by the monitor itself (the link asks once the peer's probes ended)
     */
    static Map<String, Object> monitorProperties(Map<String, Object> policyProperties, boolean connecting) {
        if (connecting) {
            return policyProperties;
        }
        Map<String, Object> m = new HashMap<>(policyProperties);
        m.put(DEFER_PROBES_PROPERTY, Boolean.FALSE);
        return m;
    }

    /** Engine wiring, set once before the engine starts. */
    void attach(Decomposition d, PolicyBinder p) {
        decomposition = d;
        policies = p;
        if (monitor != null) {
            try {
                // probes burst onto a path like data chunks: the congestion policy bounds both
                monitor.chunkLimits(new ChunkLimits() {
                    @Override
                    public long maxChunkBytes(int path) {
                        return d.maxChunkBytes(path);
                    }

                    @Override
                    public int maxOutstandingChunks(int path) {
                        return d.maxOutstandingChunks(path);
                    }
                });
            } catch (RuntimeException e) {
                fault(e);
            }
        }
    }

    /** @return the view the policy sessions start with: the monitor if bound, else the core's */
    PathStateView view() {
        return monitor != null ? monitor : table;
    }

    /** @return whether a monitor is in use now */
    boolean monitored() {
        return monitor != null;
    }

    // ---------------------------------------------------------------- other threads

    /**
     * Any thread: the factory went away; the engine detaches at its next duty cycle.
     *
     * @param gone the factory being unbound
     * @return true if this connection's monitor came from it
     */
    boolean requestDetach(PathMonitorFactory gone) {
        if (gone == null || gone != factory) {
            return false;
        }
        detachRequested = true;
        return true;
    }

    /** @return true once the monitor is no longer called (or there never was one) */
    boolean awaitDetached(long timeout, TimeUnit unit) throws InterruptedException {
        return detached.await(timeout, unit);
    }

    /** @return true if a detach is waiting for the engine */
    boolean detachPending() {
        return detachRequested && detached.getCount() > 0;
    }

    /**
     * @return true while the link needs ticks without other events: the connect-time probe
     *     stagger is not over, probe WRITEs are in flight, or a detach waits
     */
    boolean timersPending() {
        return stagger != Stagger.DONE || probes.inUse() > 0 || detachPending();
    }

    // ---------------------------------------------------------------- duty cycle

    /**
     * Start of a duty cycle: detaches if asked, else advances the monitor's clock; a path whose
     * usability changed makes the sessions hear {@code onPathsChanged()}.
     *
     * @return work done
     */
    int tick(long nowNanos) {
        now = nowNanos;
        if (stagger == Stagger.WAITING && (peerProbesDone || nowNanos - peerProbesDeadline >= 0)) {
            startDeferredProbes();
        }
        if (monitor == null) {
            return 0;
        }
        if (detachRequested) {
            detach();
            return 1;
        }
        try {
            monitor.tick(nowNanos);
        } catch (RuntimeException e) {
            fault(e);
            return 0;
        }
        return usabilityChanged() ? 1 : 0;
    }

    /**
     * After completions: posts the probe WRITEs the monitor asks for.
     *
     * @return probes posted or refused
     */
    int probe() {
        PathMonitor m = monitor;
        if (m == null || detachRequested) {
            return stagger == Stagger.PROBING || stagger == Stagger.TELL_PEER ? tellPeer() : 0;
        }
        int n = 0;
        try {
            while (n < MAX_PROBES_PER_CYCLE && m.nextProbe(request)) {
                n++;
                postProbe(m, request.path(), request.bytes());
            }
        } catch (RuntimeException e) {
            fault(e);
        }
        if (stagger == Stagger.PROBING && n == 0 && probes.inUse() == 0) {
            // the monitor hands out nothing more and no probe WRITE is in flight: the flows are over
            stagger = Stagger.TELL_PEER;
        }
        if (stagger == Stagger.TELL_PEER) {
            n += tellPeer();
        }
        return n;
    }

    /** Connecting side: writes PROBES_DONE (again next cycle if the control ring is full). */
    private int tellPeer() {
        ByteBuffer b = control.claim();
        if (b == null) {
            stagger = Stagger.TELL_PEER;
            return 0;
        }
        control.commit(Protocol.PROBES_DONE, b);
        stagger = Stagger.DONE;
        return 1;
    }

    /**
     * A PROBES_DONE frame: the connecting side's connect-time probes are over.
     *
     * @throws ProtocolException if it has a body, reached the connecting side or came twice
     */
    void onPeerProbesDone(ByteBuffer body) throws ProtocolException {
        Fields.end(body, "PROBES_DONE");
        if (connecting) {
            throw new ProtocolException("PROBES_DONE sent to the connecting side");
        }
        if (peerProbesDone) {
            throw new ProtocolException("duplicate PROBES_DONE");
        }
        peerProbesDone = true;
    }

    /** Accepting side: the peer's probes are over (or it waited long enough): probes every UP path. */
    private void startDeferredProbes() {
        stagger = Stagger.DONE;
        if (!peerProbesDone) {
            peerProbesTimeouts++;
        }
        PathMonitor m = monitor;
        if (m == null || detachRequested) {
            return;
        }
        try {
            int n = Math.min(table.pathCount(), m.pathCount());
            for (int p = 0; p < n; p++) {
                if (table.state(p) == PathState.UP && !seeded[p]) {
                    m.requestProbe(p);
                }
            }
        } catch (RuntimeException e) {
            fault(e);
        }
    }

    private void postProbe(PathMonitor m, int p, long bytes) {
        long limit = Math.min(scratch.length(), peerScratch.length());
        int slot = -1;
        boolean posted = false;
        if (bytes > 0 && bytes <= limit && p >= 0 && p < table.pathCount() && table.state(p) == PathState.UP) {
            slot = probes.allocate(p, bytes, now);
        }
        if (slot >= 0) {
            posted = paths.chunks().post(p, probes.wrId(slot), IbvWrOpcode.RDMA_WRITE, scratch.address(), (int) bytes,
                    scratch.lkey(), peerScratch.address(), peerScratch.rkey(), 0);
            if (!posted) {
                probes.release(slot);
            }
        }
        if (posted) {
            probesPosted++;
            return;
        }
        probesRefused++;
        m.onProbeCompleted(p, bytes, 0, ChunkOutcome.ERROR);
        if (p >= 0 && p < table.pathCount() && table.state(p) != PathState.UP) {
            // the post found the QP broken (the path manager marked it RECOVERING)
            decomposition.pathsChanged();
        }
    }

    /** A completion whose wr_id carries {@link WrIdTags#PROBE}: a probe WRITE's. */
    void onProbeCompletion(IbvWc wc) {
        int slot = probes.slotOf(wc.wrId());
        if (slot < 0) {
            staleProbeCompletions++;
            return;
        }
        int p = probes.path[slot];
        long bytes = probes.bytes[slot];
        long latency = Math.max(0, now - probes.postedAt[slot]);
        probes.release(slot);
        IbvWcStatus st = wc.status();
        PathMonitor m = monitor;
        if (m != null && !detachRequested) {
            try {
                m.onProbeCompleted(p, bytes, latency, outcome(st));
                double capacity = m.probedCapacity(p);
                if (capacity > 0) {
                    // the core's view keeps the last measurement should the monitor go away
                    table.probedCapacity(p, capacity);
                }
                share(m, p, capacity);
            } catch (RuntimeException e) {
                fault(e);
            }
        }
        if (st != IbvWcStatus.SUCCESS) {
            probeErrors++;
            // any error completion leaves the QP in ERR: the path fails like for a data chunk
            if (table.state(p) == PathState.UP) {
                paths.pathFailed(p, st);
                decomposition.pathsChanged();
            }
        }
        if (monitor != null && !detachRequested) {
            usabilityChanged();
        }
    }

    static ChunkOutcome outcome(IbvWcStatus s) {
        return switch (s) {
            case SUCCESS -> ChunkOutcome.SUCCESS;
            case RETRY_EXC_ERR -> ChunkOutcome.RETRY_EXCEEDED;
            case RNR_RETRY_EXC_ERR -> ChunkOutcome.RNR_RETRY_EXCEEDED;
            case WR_FLUSH_ERR -> ChunkOutcome.FLUSHED;
            default -> ChunkOutcome.ERROR;
        };
    }

    private boolean usabilityChanged() {
        boolean changed = false;
        try {
            int n = Math.min(table.pathCount(), monitor.pathCount());
            for (int p = 0; p < n; p++) {
                boolean u = monitor.usable(p);
                if (u != usable[p]) {
                    usable[p] = u;
                    changed = true;
                    int path = p;
                    LOG.log(System.Logger.Level.DEBUG, () -> "connection " + connectionId + ": path " + path
                            + (u ? " usable" : " not usable") + " (path monitor)");
                }
            }
        } catch (RuntimeException e) {
            fault(e);
            return false;
        }
        if (changed) {
            decomposition.pathsChanged();
        }
        return changed;
    }

    private void detach() {
        PathMonitor m = monitor;
        monitor = null;
        // sessions over the monitor are closed and re-created over the core's view before it closes
        policies.switchView(table);
        try {
            m.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "connection " + connectionId + ": closing the path monitor failed", e);
            recordFault(e);
        }
        detached.countDown();
    }

    private void fault(RuntimeException e) {
        if (!detachRequested) { // once per monitor: after a fault it is not called again
            LOG.log(System.Logger.Level.WARNING, "connection " + connectionId + ": path monitor failed; "
                    + "the core's own path view takes over", e);
        }
        recordFault(e);
        // no further call into the monitor; the engine switches to its own view next cycle
        detachRequested = true;
    }

    private void recordFault(RuntimeException e) {
        monitorFaults++;
        lastFault = e.toString();
    }

    // ---------------------------------------------------------------- ChunkObserver

    @Override
    public void onChunkPosted(int path, long bytes) {
        if (monitor != null && !detachRequested) {
            try {
                monitor.onChunkPosted(path, bytes);
            } catch (RuntimeException e) {
                fault(e);
            }
        }
    }

    @Override
    public void onChunkCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        if (monitor != null && !detachRequested) {
            try {
                monitor.onChunkCompleted(path, bytes, latencyNanos, outcome);
            } catch (RuntimeException e) {
                fault(e);
            }
        }
    }

    // ---------------------------------------------------------------- PathEvents

    @Override
    public void pathAdded(int path) {
        if (monitor != null && !detachRequested) {
            try {
                pairs[path] = shared == null ? null : shared.pair(paths.slot(path));
                seeded[path] = false;
                if (path < announced) {
                    // the released slot of a removed path, reused: to the monitor (whose SPI adds
                    // slots in order) it is that path coming back UP, on probation until probed
                    monitor.onPathState(path, PathState.UP);
                } else {
                    monitor.onPathAdded(path);
                    announced = path + 1;
                    seeded[path] = seed(monitor, path);
                }
                if (!connecting && stagger == Stagger.DONE && !seeded[path]) {
                    // this side's monitor does not probe added paths by itself (see the class comment)
                    monitor.requestProbe(path);
                }
                usable[path] = monitor.usable(path);
            } catch (RuntimeException e) {
                fault(e);
            }
        }
    }

    /** Offers a new path its pair's shared capacity. @return true if the monitor took it */
    private boolean seed(PathMonitor m, int path) {
        SharedCapacities.PathPair pair = pairs[path];
        SharedCapacities.Measurement found = pair == null ? null : shared.capacities().find(pair);
        if (found == null) {
            return false;
        }
        if (!m.seedCapacity(path, found.bytesPerSecond(), Math.max(0, now - found.measuredAtNanos()))) {
            return false;
        }
        table.probedCapacity(path, found.bytesPerSecond());
        capacitiesSeeded++;
        return true;
    }

    /** After a probe completion: a capacity the monitor measured itself replaces its pair's entry. */
    private void share(PathMonitor m, int path, double capacity) {
        long n = m.capacityMeasurements(path);
        if (n != measurementsShared[path]) {
            measurementsShared[path] = n;
            if (pairs[path] != null && capacity > 0) {
                shared.capacities().record(pairs[path], capacity, now);
            }
        }
    }

    @Override
    public void pathState(int path, PathState state) {
        if (monitor != null && !detachRequested) {
            try {
                monitor.onPathState(path, state);
                usable[path] = monitor.usable(path);
            } catch (RuntimeException e) {
                fault(e);
            }
        }
    }

    @Override
    public void pathAbandoned(int path) {
        for (int s = 0; s < probes.capacity(); s++) {
            if (probes.inUse(s) && probes.path[s] == path) {
                long bytes = probes.bytes[s];
                probes.release(s);
                if (monitor != null && !detachRequested) {
                    try {
                        monitor.onProbeCompleted(path, bytes, 0, ChunkOutcome.FLUSHED);
                    } catch (RuntimeException e) {
                        fault(e);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- statistics and end

    /**
     * @param core the core's statistics, one per path
     * @return them with the monitor's figures when one is bound (state, addresses and
     *     retransmissions stay the core's)
     */
    List<PathStats> overlay(List<PathStats> core) {
        PathMonitor m = monitor;
        if (m == null || detachRequested) {
            return core;
        }
        List<PathStats> out = new ArrayList<>(core.size());
        try {
            for (PathStats s : core) {
                if (s.pathId() >= m.pathCount()) {
                    out.add(s);
                    continue;
                }
                PathStatistics st = m.statistics(s.pathId(), statistics);
                out.add(new PathStats(s.pathId(), s.localAddress(), s.remoteAddress(), s.state(), st.bytesCompleted,
                        st.chunksCompleted, st.chunksFailed, st.inFlightBytes, st.estimatedRate, st.probedCapacity,
                        st.smoothedLatencyNanos, s.retransmissions()));
            }
        } catch (RuntimeException e) {
            fault(e);
            return core;
        }
        return out;
    }

    /** Closes the monitor (if still bound) and the scratch region. Engine thread, at teardown. */
    @Override
    public void close() {
        PathMonitor m = monitor;
        monitor = null;
        if (m != null) {
            try {
                m.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "connection " + connectionId + ": closing the path monitor failed", e);
                recordFault(e);
            }
        }
        scratch.close();
        detached.countDown();
    }

    long probesPosted() {
        return probesPosted;
    }

    long probesRefused() {
        return probesRefused;
    }

    long probeErrors() {
        return probeErrors;
    }

    long staleProbeCompletions() {
        return staleProbeCompletions;
    }

    /** @return whether the accepting side gave up waiting for PROBES_DONE (0 or 1) */
    long peerProbesTimeouts() {
        return peerProbesTimeouts;
    }

    /** @return whether the peer's PROBES_DONE arrived (accepting side) */
    boolean peerProbesDone() {
        return peerProbesDone;
    }

    long monitorFaults() {
        return monitorFaults;
    }

    /** @return paths that started with another connection's probed capacity instead of probing */
    long capacitiesSeeded() {
        return capacitiesSeeded;
    }

    /** @return a one-line diagnostic */
    String describe() {
        return "monitor=" + (monitor != null ? "bound" : "none") + " probesPosted=" + probesPosted + " probesRefused="
                + probesRefused + " stagger=" + stagger + " peerProbesTimeouts=" + peerProbesTimeouts
                + " probeErrors=" + probeErrors + " staleProbeCqes=" + staleProbeCompletions
                + " probesInFlight=" + probes.inUse() + " capacitiesSeeded=" + capacitiesSeeded
                + " monitorFaults=" + monitorFaults
                + (lastFault != null ? " lastFault=" + lastFault : "") + " connection=" + connectionId;
    }
}
