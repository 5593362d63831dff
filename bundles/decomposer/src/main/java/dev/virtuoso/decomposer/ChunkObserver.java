package dev.virtuoso.decomposer;

import dev.virtuoso.spi.policy.ChunkOutcome;

/** Told about data chunks (e.g. a path monitor). Engine thread only; must not block. */
public interface ChunkObserver {

    /**
     * A chunk was posted.
     *
     * @param path path slot
     * @param bytes chunk length
     */
    void onChunkPosted(int path, long bytes);

    /**
     * A chunk ended; called before the policy sessions hear of it.
     *
     * @param path path slot
     * @param bytes chunk length
     * @param latencyNanos time from post to completion
     * @param outcome how it ended
     */
    void onChunkCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome);
}
