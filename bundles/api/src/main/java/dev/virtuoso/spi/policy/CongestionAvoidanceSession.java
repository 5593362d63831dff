package dev.virtuoso.spi.policy;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One connection's congestion-avoidance state: bounds each path's chunk size and the number of
 * chunks outstanding on it, and reacts to completions. Called only on the connection's engine
 * thread; methods must not block and should not allocate.
 */
@ConsumerType
public interface CongestionAvoidanceSession extends AutoCloseable {

    /**
     * @param path path slot
     * @return the largest chunk (bytes, at least 1) the path may carry now
     */
    long maxChunkBytes(int path);

    /**
     * @param path path slot
     * @return how many chunks may be outstanding on the path (at least 1)
     */
    int maxOutstandingChunks(int path);

    /**
     * The rate the path's QP may send at, where the device paces packets ({@code IBV_QP_RATE_LIMIT}):
     * a standing queue in front of a lossy link is what go-back-N resends after each loss, and
     * pacing at the path's rate keeps that queue empty. The core asks after chunks complete and
     * applies a changed rate (rounded to the device's range); on a device that cannot pace the value
     * is ignored.
     *
     * @param path path slot
     * @return bits per second on the wire (headers included), 0 for no limit (the default)
     * @since 1.2
     */
    default long pacingBitsPerSecond(int path) {
        return 0;
    }

    /**
     * A chunk on {@code path} ended.
     *
     * @param path path slot
     * @param bytes chunk length
     * @param latencyNanos time from post to completion
     * @param outcome how it ended; RETRY_EXCEEDED is the paper's congestion signal
     */
    void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome);

    /** Paths were added or removed. */
    void onPathsChanged();

    /** Releases the session; it is never called again afterwards. */
    @Override
    void close();
}
