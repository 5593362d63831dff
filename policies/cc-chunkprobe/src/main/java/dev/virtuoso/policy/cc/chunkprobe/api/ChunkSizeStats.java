package dev.virtuoso.policy.cc.chunkprobe.api;

/**
 * Chunk-size statistics of one path.
 *
 * @param path path slot
 * @param phase {@code BINARY} (doubling while chunks succeed), {@code LINEAR} (after the first
 *     loss: growing by a fixed step) or {@code STEADY} (threshold found)
 * @param currentChunkBytes the chunk size the path may carry now
 * @param safeChunkBytes the largest chunk size that succeeded since the last loss at or below it
 *     (0 before the first success)
 * @param maxCompletedChunkBytes the largest chunk that completed successfully
 * @param averageCompletedChunkBytes mean size of the chunks that completed successfully
 * @param chunksCompleted chunks that completed successfully
 * @param losses chunks that ended with RETRY_EXCEEDED (the congestion signal)
 */
public record ChunkSizeStats(int path, String phase, long currentChunkBytes, long safeChunkBytes,
        long maxCompletedChunkBytes, long averageCompletedChunkBytes, long chunksCompleted, long losses) {
}
