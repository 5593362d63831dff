package dev.virtuoso.decomposer.internal;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;

/** The core's own congestion avoidance: a fixed chunk size and a fixed window per path. */
final class BuiltinFixedChunk implements CongestionAvoidanceSession {
    private final long chunkBytes;
    private final int chunksPerPath;

    BuiltinFixedChunk(long chunkBytes, int chunksPerPath) {
        this.chunkBytes = chunkBytes;
        this.chunksPerPath = chunksPerPath;
    }

    @Override
    public long maxChunkBytes(int path) {
        return chunkBytes;
    }

    @Override
    public int maxOutstandingChunks(int path) {
        return chunksPerPath;
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        // fixed: completions change nothing
    }

    @Override
    public void onPathsChanged() {
        // fixed: paths change nothing
    }

    @Override
    public void close() {
        // owned by the decomposition; nothing to release
    }
}
