package dev.virtuoso.pathmonitor.internal;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.api.PathState;
import dev.virtuoso.pathmonitor.api.ChunkLimits;
import dev.virtuoso.pathmonitor.api.PathHealth;
import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.PathStatistics;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.spi.policy.ChunkOutcome;

/**
 * The path monitor of one connection. Engine-thread state lives in one {@link PathRecord} per
 * path; the array grows (the only allocation) when a path is added.
 *
 * <p>Failback with probing: a path reported UP again after RECOVERING is on probation (health
 * {@link PathHealth#RECOVERING}, not usable) until a probe flow on it succeeds; a failed flow is
 * retried after the error cooldown. Without a scratch region (no probing) it rejoins at once. So
 * does a path that carried data (or a probe flow) successfully between its last UP and the
 * failure: on a lossy path with no QP retries every congestion loss fails the QP, and a probation
 * flow after each of those repairs kept the path out for tens of milliseconds per loss although
 * the link was fine; its next data chunk is the probe instead. If that one fails too (nothing
 * carried since the repair: a broken link, not a loss), the path goes on probation. A side that
 * posted no data chunk on the path since its last UP (the receiver of a one-way transfer, whose
 * peer's loss repaired the path) skips probation as well if the path ever carried anything: it has
 * no data to keep off the path, and its probe flows would share the link with the peer's ACKs. A
 * path that never carried anything stays on probation until a flow gets through.
 *
 * <p>Probe flows back off like the paper's chunk probe: a flow is posted as one burst, and a link
 * whose buffer (or the QP's ACK timeout) cannot take that burst fails it every time, which would
 * keep a repaired path out for good although smaller chunks get through. So each failed flow
 * halves the path's next flow (down to {@value #MIN_BACKOFF_FLOW_BYTES} bytes) and each success
 * doubles it back up to the configured size. A smaller flow ends probation, but only a flow of the
 * configured size sets the probed capacity (unless none is known yet): short flows measure less
 * accurately.
 *
 * <p>A probation flow is no larger than the last data chunk that completed on the path or, on a
 * side that sent none (the receiving side of a one-way transfer), the last probe flow that
 * succeeded on it: that burst is what the path was last seen to take (one WR for the sizes of a
 * shallow buffer). On a lossy path a data chunk's RETRY_EXC_ERR (the congestion policy's probe)
 * costs a QP repair on both sides and probation on both; a configured-size flow (512 KiB in 128
 * KiB WRs) overflowed a shallow buffer every time, each failure cost another repair with a longer
 * delay, and the receiving side's flows filled the queue of the data's ACKs.
 *
 * <p>With {@code pathmonitor.probeOnPathAdded=false} (set by the core on the accepting side, whose
 * connect-time probes wait for the connecting side's) an added path is probed only on
 * {@link #requestProbe}.
 *
 * <p>A new path may instead start with another connection's recent measurement of the same path
 * pair ({@link #seedCapacity}, no older than {@code sharedCapacityMaxAgeMillis}): it is the
 * link's capacity, which is what the load balancers weigh paths by, so the connect-time flows are
 * skipped. Each capacity this monitor measures itself counts in {@link #capacityMeasurements},
 * from which the core refreshes the shared entry.
 */
final class ConnectionPathMonitor implements PathMonitor {
    private static final long HOUSEKEEPING_NANOS = 1_000_000L;
    private static final int STALL_DRAIN_FACTOR = 4;
    /** Smallest probe flow the back-off after failed flows goes down to. */
    static final long MIN_BACKOFF_FLOW_BYTES = 4096;
    /** Most a probe's dispersion estimate may exceed its elapsed-time rate (see flowCapacity). */
    static final double ACK_COMPRESSION_FACTOR = 3;
    /** A first-probing flow that gains more than this over the best before is followed by another. */
    static final double WARM_UP_GAIN = 1.1;

    private final String connectionId;
    private final MonitorSettings settings;
    private final long probeWrBytes;
    private volatile PathRecord[] paths = new PathRecord[0];
    private long now;
    private long nextHousekeepingNanos;
    private int probeCursor;
    private int runningProbes;
    /** The congestion policy's chunk limits, which probe WRITEs obey (engine thread). */
    private ChunkLimits limits = ChunkLimits.NONE;
    private long unexpectedCompletions;
    /** Probe requests from other threads (commands), one bit per path below 64; taken by tick. */
    private final AtomicLong requestedProbes = new AtomicLong();
    private volatile Runnable onClose = () -> { };
    private volatile boolean closed;

    /**
     * @param connectionId for logs and statistics
     * @param settings validated settings
     * @param probeScratchBytes the peer's scratch length; 0 disables probing
     * @param nowNanos the clock at creation
     */
    ConnectionPathMonitor(String connectionId, MonitorSettings settings, long probeScratchBytes, long nowNanos) {
        if (probeScratchBytes < 0) {
            throw new IllegalArgumentException("probeScratchBytes must be >= 0: " + probeScratchBytes);
        }
        this.connectionId = connectionId;
        this.settings = settings;
        this.probeWrBytes = Math.min(settings.probeWriteBytes(), probeScratchBytes);
        this.now = nowNanos;
    }

    /** @return the connection this monitor serves */
    String connectionId() {
        return connectionId;
    }

    /** @return completions reported for paths with nothing in flight (core accounting errors) */
    long unexpectedCompletions() {
        return unexpectedCompletions;
    }

    // ---- PathStateView ----

    @Override
    public int pathCount() {
        return paths.length;
    }

    @Override
    public boolean usable(int path) {
        return health(path) == PathHealth.HEALTHY;
    }

    @Override
    public long inFlightBytes(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.inFlightBytes;
    }

    @Override
    public int inFlightChunks(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.inFlightChunks;
    }

    @Override
    public double probedCapacity(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.probedCapacity;
    }

    @Override
    public double estimatedRate(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.rate.rate();
    }

    @Override
    public long smoothedLatencyNanos(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.smoothedLatencyNanos;
    }

    @Override
    public long completedBytes(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.completedBytes;
    }

    @Override
    public int consecutiveErrors(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.consecutiveErrors;
    }

    @Override
    public long nowNanos() {
        return now;
    }

    // ---- hooks ----

    @Override
    public void tick(long nowNanos) {
        now = nowNanos;
        if (nowNanos - nextHousekeepingNanos < 0) {
            return;
        }
        nextHousekeepingNanos = nowNanos + HOUSEKEEPING_NANOS;
        PathRecord[] ps = paths;
        long asked = requestedProbes.getAndSet(0);
        for (int p = 0; asked != 0 && p < ps.length && p < 64; p++) {
            if ((asked & (1L << p)) != 0) {
                requestProbe(p);
            }
        }
        for (int p = 0; p < ps.length; p++) {
            PathRecord r = ps[p];
            if (settings.probeIntervalNanos() > 0 && probeWrBytes > 0 && r.state == PathState.UP
                    && r.probe == PathRecord.Probe.IDLE && r.inFlightChunks == 0
                    && nowNanos - r.nextPeriodicProbeNanos >= 0) {
                r.probe = PathRecord.Probe.PENDING;
            }
            r.publish(health(r));
        }
    }

    @Override
    public void onPathAdded(int path) {
        PathRecord[] ps = paths;
        if (path != ps.length) {
            throw new IllegalArgumentException("path slots are added in order: expected " + ps.length + ", got " + path);
        }
        PathRecord r = new PathRecord(settings);
        r.lastProgressNanos = now;
        r.nextPeriodicProbeNanos = now + settings.probeIntervalNanos();
        if (probeWrBytes > 0 && settings.probeOnPathAdded()) {
            r.probe = PathRecord.Probe.PENDING;
        }
        PathRecord[] grown = Arrays.copyOf(ps, ps.length + 1);
        grown[path] = r;
        r.publish(health(r));
        paths = grown;
    }

    @Override
    public void onPathState(int path, PathState state) {
        PathRecord r = existing(path);
        PathState old = r.state;
        r.state = state;
        if (state == PathState.UP && old != PathState.UP) {
            boolean provenBefore = r.probesCompleted > 0 || r.chunksCompleted > 0;
            // a path that failed while on probation stays on it
            boolean nothingToProve = old == PathState.RECOVERING && !r.probation
                    && (r.carriedSinceUp || (!r.postedSinceUp && provenBefore));
            r.carriedSinceUp = false;
            r.postedSinceUp = false;
            r.probation = probeWrBytes > 0 && !nothingToProve;
            r.consecutiveErrors = 0;
            r.pausedUntilNanos = now;
            r.cooldownNanos = settings.errorCooldownNanos();
            r.lastProgressNanos = now;
            if (r.probation) {
                planProbe(r);
            }
        } else if (state != PathState.UP) {
            if (r.probe == PathRecord.Probe.PENDING) {
                r.probe = PathRecord.Probe.IDLE;
            } else if (r.probe == PathRecord.Probe.RUNNING) {
                // its posted WRs are reported as FLUSHED; none more is issued
                r.probeWrsToIssue = 0;
                r.probeFailed = true;
                if (r.probeWrsOutstanding == 0) {
                    finishProbe(r);
                }
            }
        }
        r.publish(health(r));
    }

    @Override
    public void onChunkPosted(int path, long bytes) {
        PathRecord r = existing(path);
        r.postedSinceUp = true;
        addInFlight(r, bytes);
        r.publish(health(r));
    }

    @Override
    public void onChunkCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        PathRecord r = existing(path);
        removeInFlight(r, bytes);
        if (outcome == ChunkOutcome.SUCCESS) {
            r.completedBytes += bytes;
            r.chunksCompleted++;
            r.provenChunkBytes = bytes;
            r.carriedSinceUp = true;
            delivered(r, bytes, latencyNanos);
        } else {
            r.chunksFailed++;
            failed(r);
        }
        r.publish(health(r));
    }

    @Override
    public void chunkLimits(ChunkLimits l) {
        limits = l != null ? l : ChunkLimits.NONE;
    }

    /**
     * Takes another connection's recent measurement of the same path pair when it is no older than
     * {@code sharedCapacityMaxAgeMillis} (0: never) and the path has not started probing or
     * measured anything itself: the path then starts with that capacity and its connect-time probe
     * flows are dropped (on the accepting side the core does not ask for them).
     */
    @Override
    public boolean seedCapacity(int path, double bytesPerSecond, long ageNanos) {
        PathRecord r = existing(path);
        long maxAge = settings.sharedCapacityMaxAgeNanos();
        boolean fresh = maxAge > 0 && ageNanos >= 0 && ageNanos <= maxAge;
        boolean valid = bytesPerSecond > 0 && !Double.isInfinite(bytesPerSecond);
        boolean unprobed = r.state == PathState.UP && !r.probation && r.probe != PathRecord.Probe.RUNNING
                && r.probedCapacity == 0 && r.initialFlowsDone == 0;
        if (closed || !fresh || !valid || !unprobed) {
            return false;
        }
        r.probedCapacity = bytesPerSecond;
        r.probe = PathRecord.Probe.IDLE;
        r.publish(health(r));
        return true;
    }

    @Override
    public long capacityMeasurements(int path) {
        PathRecord r = record(path);
        return r == null ? 0 : r.capacityMeasurements;
    }

    @Override
    public boolean nextProbe(ProbeRequest out) {
        PathRecord[] ps = paths;
        if (closed || probeWrBytes == 0 || ps.length == 0) {
            return false;
        }
        for (int i = 0; i < ps.length; i++) {
            int p = (probeCursor + i) % ps.length;
            PathRecord r = ps[p];
            if (r.probe == PathRecord.Probe.PENDING && mayProbe(r)
                    && (settings.probeParallelPaths() == 0 || runningProbes < settings.probeParallelPaths())) {
                startProbe(r, p);
            }
            if (r.probe == PathRecord.Probe.RUNNING && r.probeWrsToIssue > 0
                    && r.probeWrsOutstanding < Math.max(1, limits.maxOutstandingChunks(p))) {
                r.probeWrsToIssue--;
                r.probeWrsOutstanding++;
                addInFlight(r, r.probeWrBytes);
                r.publish(health(r));
                probeCursor = p;
                out.set(p, r.probeWrBytes);
                return true;
            }
        }
        return false;
    }

    @Override
    public void onProbeCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        PathRecord r = existing(path);
        removeInFlight(r, bytes);
        if (r.probe != PathRecord.Probe.RUNNING || r.probeWrsOutstanding == 0) {
            unexpectedCompletions++;
            r.publish(health(r));
            return;
        }
        r.probeWrsOutstanding--;
        if (outcome == ChunkOutcome.SUCCESS) {
            delivered(r, bytes, latencyNanos);
            if (r.probeWrsDone == 0) {
                r.probeFirstDoneNanos = now;
                r.probeFirstBytes = bytes;
            }
            r.probeWrsDone++;
            r.probeBytesDone += bytes;
            r.probeLastDoneNanos = now;
        } else {
            r.probeFailed = true;
            r.probeWrsToIssue = 0;
            failed(r);
        }
        if (r.probeWrsOutstanding == 0 && r.probeWrsToIssue == 0) {
            finishProbe(r);
        }
        r.publish(health(r));
    }

    @Override
    public PathHealth health(int path) {
        PathRecord r = record(path);
        return r == null ? PathHealth.DOWN : health(r);
    }

    @Override
    public void requestProbe(int path) {
        PathRecord r = existing(path);
        if (r.probe == PathRecord.Probe.RUNNING) {
            r.probeAgain = true;
        } else if (r.state == PathState.UP) {
            planProbe(r);
        }
    }

    @Override
    public PathStatistics statistics(int path, PathStatistics out) {
        PathRecord r = record(path);
        if (r == null) {
            throw new IndexOutOfBoundsException("no path " + path + " on connection " + connectionId);
        }
        r.read(path, out);
        return out;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }

    /** @return true once closed */
    boolean closed() {
        return closed;
    }

    /** @param action run once when the monitor is closed (unregisters it) */
    void onClose(Runnable action) {
        this.onClose = action;
    }

    /**
     * Asks for a probe flow on a path from any thread; the engine thread starts it at its next
     * housekeeping tick (within about a millisecond).
     *
     * @param path path slot, below 64
     */
    void requestProbeAsync(int path) {
        if (path < 0 || path >= 64) {
            throw new IllegalArgumentException("path must be 0..63: " + path);
        }
        requestedProbes.getAndUpdate(v -> v | (1L << path));
    }

    // ---- internals ----

    private PathRecord record(int path) {
        PathRecord[] ps = paths;
        return path >= 0 && path < ps.length ? ps[path] : null;
    }

    private PathRecord existing(int path) {
        PathRecord r = record(path);
        if (r == null) {
            throw new IndexOutOfBoundsException("no path " + path + " on connection " + connectionId);
        }
        return r;
    }

    private PathHealth health(PathRecord r) {
        if (r.state == PathState.RECOVERING) {
            return PathHealth.RECOVERING;
        }
        if (r.state == PathState.DOWN) {
            return PathHealth.DOWN;
        }
        if (r.probation) {
            return PathHealth.RECOVERING;
        }
        if (r.consecutiveErrors >= settings.errorThreshold() && now - r.pausedUntilNanos < 0) {
            return PathHealth.ERRORS;
        }
        long quiet = now - r.lastProgressNanos;
        // the limit is never below the stall timeout: the cheap test first (health runs per chunk)
        if (r.inFlightChunks > 0 && quiet > settings.stallTimeoutNanos() && quiet > stallLimitNanos(r)) {
            return PathHealth.STALLED;
        }
        return PathHealth.HEALTHY;
    }

    /** A healthy path may be probed; so may a path on probation once its error cooldown passed. */
    private boolean mayProbe(PathRecord r) {
        if (r.probation) {
            return r.state == PathState.UP
                    && (r.consecutiveErrors < settings.errorThreshold() || now - r.pausedUntilNanos >= 0);
        }
        return health(r) == PathHealth.HEALTHY;
    }

    /** A slow path draining a big backlog is not stalled: allow several drain times. */
    private long stallLimitNanos(PathRecord r) {
        double rate = r.rate.rate() > 0 ? r.rate.rate() : r.probedCapacity;
        if (rate <= 0) {
            return settings.stallTimeoutNanos();
        }
        double drain = STALL_DRAIN_FACTOR * r.inFlightBytes * 1e9 / rate;
        return Math.max(settings.stallTimeoutNanos(), (long) Math.min(drain, Long.MAX_VALUE / 4));
    }

    private void addInFlight(PathRecord r, long bytes) {
        if (r.inFlightChunks == 0) {
            r.lastProgressNanos = now;
        }
        r.inFlightBytes += bytes;
        r.inFlightChunks++;
    }

    private void removeInFlight(PathRecord r, long bytes) {
        if (r.inFlightChunks == 0) {
            unexpectedCompletions++;
        } else {
            r.inFlightChunks--;
        }
        r.inFlightBytes = Math.max(0, r.inFlightBytes - bytes);
        if (r.inFlightChunks == 0) {
            r.inFlightBytes = 0;
        }
        r.lastProgressNanos = now;
    }

    private void delivered(PathRecord r, long bytes, long latencyNanos) {
        r.consecutiveErrors = 0;
        r.cooldownNanos = settings.errorCooldownNanos();
        r.rate.onDelivered(bytes, latencyNanos, now);
        long lat = Math.max(0, latencyNanos);
        r.smoothedLatencyNanos = r.smoothedLatencyNanos == 0 ? lat : r.smoothedLatencyNanos + (lat - r.smoothedLatencyNanos) / 8;
    }

    private void failed(PathRecord r) {
        r.consecutiveErrors++;
        r.rate.onFailed(now);
        if (r.consecutiveErrors >= settings.errorThreshold()) {
            r.pausedUntilNanos = now + r.cooldownNanos;
            r.cooldownNanos = Math.min(r.cooldownNanos * 2, settings.maxErrorCooldownNanos());
        }
    }

    private void planProbe(PathRecord r) {
        if (probeWrBytes == 0) {
            return;
        }
        if (r.probe == PathRecord.Probe.IDLE) {
            r.probe = PathRecord.Probe.PENDING;
        } else if (r.probe == PathRecord.Probe.RUNNING) {
            r.probeAgain = true;
        }
    }

    private void startProbe(PathRecord r, int path) {
        r.probe = PathRecord.Probe.RUNNING;
        r.probeAgain = false;
        r.probeFailed = false;
        long flow = r.probeFlowBytes;
        long taken = r.provenChunkBytes > 0 ? r.provenChunkBytes : r.lastGoodFlowBytes;
        if (r.probation && taken > 0) {
            // failback: no larger than the last data chunk (else probe flow) the path took
            flow = Math.min(flow, taken);
        }
        r.probeFlowRunning = flow;
        r.probeFlowFull = flow >= settings.probeFlowBytes();
        // a probe WRITE bursts onto the path like a data chunk: no larger than the policy's chunks
        r.probeWrBytes = Math.min(Math.min(probeWrBytes, flow), Math.max(1, limits.maxChunkBytes(path)));
        r.probeWrsToIssue = (int) ((flow + r.probeWrBytes - 1) / r.probeWrBytes);
        r.probeWrsOutstanding = 0;
        r.probeWrsDone = 0;
        r.probeBytesDone = 0;
        r.probeStartNanos = now;
        r.probeBehindData = r.inFlightChunks > 0;
        runningProbes++;
    }

    private void finishProbe(PathRecord r) {
        runningProbes--;
        if (r.probeFailed) {
            r.probesFailed++;
            r.probeFlowBytes = Math.max(MIN_BACKOFF_FLOW_BYTES, r.probeFlowRunning / 2);
        } else {
            r.lastGoodFlowBytes = r.probeFlowRunning;
            r.carriedSinceUp = true;
            double capacity = flowCapacity(r);
            boolean first = r.probesCompleted == 0;
            r.probeFlowBytes = Math.min(settings.probeFlowBytes(), Math.max(r.probeFlowBytes, 2 * r.probeFlowRunning));
            if (first && r.probeFlowFull && warmingUp(r, capacity)) {
                r.probeAgain = true;
            } else {
                if (r.probeFlowFull) {
                    r.probedCapacity = first ? r.initialBest : capacity;
                    r.capacityMeasurements++;
                } else if (r.probedCapacity == 0) {
                    r.probedCapacity = capacity;
                    r.capacityMeasurements++;
                }
                r.probesCompleted++;
                r.probation = false;
            }
        }
        r.nextPeriodicProbeNanos = now + settings.probeIntervalNanos();
        r.probe = PathRecord.Probe.IDLE;
        if ((r.probeAgain || r.probation) && r.state == PathState.UP) {
            r.probeAgain = false;
            r.probe = PathRecord.Probe.PENDING;
        }
    }

    /**
     * A path's first flows run on a cold QP and host data path (on the soft RNIC the first one
     * measured up to 9x below the link rate in a fresh JVM): flows follow back to back while each
     * measures more than {@value #WARM_UP_GAIN} times the best before, at most
     * {@code initialProbeFlows}. Each elapsed-time rate is a lower bound, so the best one is kept.
     *
     * @return true if another flow should follow
     */
    private boolean warmingUp(PathRecord r, double capacity) {
        r.initialFlowsDone++;
        boolean gaining = r.initialFlowsDone == 1 || capacity > WARM_UP_GAIN * r.initialBest;
        r.initialBest = Math.max(r.initialBest, capacity);
        return gaining && r.initialFlowsDone < settings.initialProbeFlows();
    }

    /**
     * Capacity from the completion times. When nothing was in flight on the path as the flow
     * started (the usual case: connect, failback, periodic probes), the flow's bytes over the time
     * from its start to its last completion: every byte crossed the path in that time, and only
     * one round trip (tens of microseconds against milliseconds for a 512 KiB flow) is added.
     * This is robust: late or bunched completions (ACKs delayed by reverse traffic or by a busy
     * host) can only lengthen that time by the delay of the last one, whereas the dispersion
     * between the first and the last completion (three WRITEs' worth) measured 2.6x the capacity
     * on a 200 Mbit/s fabric link when they bunched.
     *
     * <p>A flow queued behind data chunks (requestProbe with data in flight) would mostly measure
     * their drain time, so there the dispersion (bytes after the first WRITE over the time
     * between the first and the last completion) is used, capped at
     * {@value #ACK_COMPRESSION_FACTOR} times the elapsed-time rate (a lower bound).
     */
    private static double flowCapacity(PathRecord r) {
        long elapsed = Math.max(1, r.probeLastDoneNanos - r.probeStartNanos);
        double lowerBound = r.probeBytesDone * 1e9 / elapsed;
        long spread = r.probeLastDoneNanos - r.probeFirstDoneNanos;
        if (r.probeBehindData && r.probeWrsDone >= 2 && spread > 0) {
            double dispersion = (r.probeBytesDone - r.probeFirstBytes) * 1e9 / spread;
            return Math.min(dispersion, ACK_COMPRESSION_FACTOR * lowerBound);
        }
        return lowerBound;
    }
}
