package dev.virtuoso.policy.cc.fixed;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;

/** One connection's {@value FixedChunkPolicy#NAME} state: three constants. */
final class FixedChunkSession implements CongestionAvoidanceSession {
    private final long chunkBytes;
    private final int window;
    private final long pacingBitsPerSecond;

    FixedChunkSession(long chunkBytes, int window, long pacingBitsPerSecond) {
        this.chunkBytes = chunkBytes;
        this.window = window;
        this.pacingBitsPerSecond = pacingBitsPerSecond;
    }

    @Override
    public long pacingBitsPerSecond(int path) {
        return pacingBitsPerSecond;
    }

    @Override
    public long maxChunkBytes(int path) {
        return chunkBytes;
    }

    @Override
    public int maxOutstandingChunks(int path) {
        return window;
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        // fixed: completions change nothing
    }

    @Override
    public void onPathsChanged() {
        // same limits on every path
    }

    @Override
    public void close() {
        // nothing held
    }
}
