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
