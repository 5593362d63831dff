package dev.virtuoso.pathmonitor.internal;

import java.util.concurrent.atomic.AtomicLongArray;

import dev.virtuoso.api.PathState;
import dev.virtuoso.pathmonitor.api.PathHealth;
import dev.virtuoso.pathmonitor.api.PathStatistics;

/**
 * Everything the monitor knows about one path. Plain fields are owned by the engine thread; the
 * {@link #published} copy is what other threads read.
 */
final class PathRecord {
    private static final int BYTES_COMPLETED = 0;
    private static final int CHUNKS_COMPLETED = 1;
    private static final int CHUNKS_FAILED = 2;
    private static final int IN_FLIGHT_BYTES = 3;
    private static final int RATE_BITS = 4;
    private static final int CAPACITY_BITS = 5;
    private static final int LATENCY = 6;
    private static final int PROBES_OK = 7;
    private static final int PROBES_FAILED = 8;
    private static final int HEALTH = 9;
    private static final int FIELDS = 10;
    private static final PathHealth[] HEALTHS = PathHealth.values();

    /** Where the path's probe flow stands. */
    enum Probe { IDLE, PENDING, RUNNING }

    final DeliveryRateEstimator rate;
    PathState state = PathState.UP;
    long inFlightBytes;
    int inFlightChunks;
    long completedBytes;
    long chunksCompleted;
    long chunksFailed;
    int consecutiveErrors;
    long lastProgressNanos;
    long pausedUntilNanos;
    long cooldownNanos;
    long smoothedLatencyNanos;
    double probedCapacity;

    Probe probe = Probe.IDLE;
    /**
     * Failback: the path came back UP and is not placed on until a probe flow succeeded on it
     * (reported {@link PathHealth#RECOVERING} meanwhile).
     */
    boolean probation;
    /**
     * A data chunk or a probe flow succeeded on the path since it last came UP: a failure after that
     * is a loss on a working path (the chunk probe's congestion signal), not a broken one, so the
     * repaired path rejoins without probation and its next data chunk is the probe.
     */
    boolean carriedSinceUp;
    /**
     * This side posted a data chunk on the path since it last came UP. Probation keeps this side's
     * data off a path that may be broken: a side with none at stake (the receiver of a one-way
     * transfer, repaired because of its peer's loss) skips it, since its probe flows would only
     * share the link with the peer's ACKs.
     */
    boolean postedSinceUp;
    boolean probeAgain;
    boolean probeFailed;
    /**
     * Size of the path's next probe flow: the configured size, halved after each failed flow (down
     * to {@code ConnectionPathMonitor.MIN_BACKOFF_FLOW_BYTES}) and doubled back after each success.
     */
    long probeFlowBytes;
    /** The running flow has the configured size (only such a flow may set the probed capacity). */
    boolean probeFlowFull;
    /** Bytes of the running (or last) flow. */
    long probeFlowRunning;
    /**
     * The size of the path's latest data chunk that completed successfully (0: none yet): a WR of
     * this size is what the congestion policy last saw the path take, so a probation flow is no
     * larger (one WR of it).
     */
    long provenChunkBytes;
    /** The size of the path's latest probe flow that succeeded (0: none yet). */
    long lastGoodFlowBytes;
    int probeWrsToIssue;
    int probeWrsOutstanding;
    long probeWrBytes;
    long probeStartNanos;
    /** Data chunks were in flight on the path when the flow started (queued ahead of it). */
    boolean probeBehindData;
    long probeFirstDoneNanos;
    long probeFirstBytes;
    long probeLastDoneNanos;
    long probeBytesDone;
    int probeWrsDone;
    long probesCompleted;
    /** Flows of the path's first probing done so far, and the best rate they measured. */
    int initialFlowsDone;
    double initialBest;
    long probesFailed;
    long nextPeriodicProbeNanos;
    /** This monitor's own probe flows that set {@link #probedCapacity} (shared by the core). */
    long capacityMeasurements;

    private final AtomicLongArray published = new AtomicLongArray(FIELDS);

    PathRecord(MonitorSettings s) {
        rate = new DeliveryRateEstimator(s.minSampleNanos(), s.rateTimeConstantNanos());
        cooldownNanos = s.errorCooldownNanos();
        probeFlowBytes = s.probeFlowBytes();
    }

    /** Copies the engine-thread state for other threads. */
    void publish(PathHealth health) {
        published.setRelease(BYTES_COMPLETED, completedBytes);
        published.setRelease(CHUNKS_COMPLETED, chunksCompleted);
        published.setRelease(CHUNKS_FAILED, chunksFailed);
        published.setRelease(IN_FLIGHT_BYTES, inFlightBytes);
        published.setRelease(RATE_BITS, Double.doubleToRawLongBits(rate.rate()));
        published.setRelease(CAPACITY_BITS, Double.doubleToRawLongBits(probedCapacity));
        published.setRelease(LATENCY, smoothedLatencyNanos);
        published.setRelease(PROBES_OK, probesCompleted);
        published.setRelease(PROBES_FAILED, probesFailed);
        published.setRelease(HEALTH, health.ordinal());
    }

    /** Fills {@code out} from the published copy (any thread). */
    void read(int path, PathStatistics out) {
        out.path = path;
        out.bytesCompleted = published.getAcquire(BYTES_COMPLETED);
        out.chunksCompleted = published.getAcquire(CHUNKS_COMPLETED);
        out.chunksFailed = published.getAcquire(CHUNKS_FAILED);
        out.inFlightBytes = published.getAcquire(IN_FLIGHT_BYTES);
        out.estimatedRate = Double.longBitsToDouble(published.getAcquire(RATE_BITS));
        out.probedCapacity = Double.longBitsToDouble(published.getAcquire(CAPACITY_BITS));
        out.smoothedLatencyNanos = published.getAcquire(LATENCY);
        out.probesCompleted = published.getAcquire(PROBES_OK);
        out.probesFailed = published.getAcquire(PROBES_FAILED);
        out.health = HEALTHS[(int) published.getAcquire(HEALTH)];
    }
}
