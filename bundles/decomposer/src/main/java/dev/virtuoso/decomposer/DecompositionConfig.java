package dev.virtuoso.decomposer;

import dev.virtuoso.util.WrId;

/**
 * Sizes and limits of one connection's decomposition.
 *
 * @param connectionId the connection's identifier (logs, policy contexts)
 * @param maxMessages MP work requests (WRITE, READ, SEND) held at once
 * @param maxChunks chunks in flight at once over all paths (at least the sum of the paths'
 *     send-queue depths)
 * @param splitThreshold messages shorter than this go whole on one path
 * @param builtinChunkBytes chunk size of the built-in fixed congestion avoidance
 * @param builtinChunksPerPath chunks the built-in congestion avoidance lets each path carry at once
 * @param failoverTimeoutNanos how long unfinished work waits while no path is usable before it
 *     fails with {@link dev.virtuoso.api.MpStatus#PATH_FAILURE}
 * @param wrIdTag the tag (bits 60..63, {@link WrId}) the engine assigns to this decomposition's
 *     chunk wr_ids; no other work on the connection's CQ may carry it
 */
public record DecompositionConfig(String connectionId, int maxMessages, int maxChunks,
        long splitThreshold, long builtinChunkBytes, int builtinChunksPerPath,
        long failoverTimeoutNanos, long wrIdTag) {

    public DecompositionConfig {
        if (connectionId == null) {
            throw new IllegalArgumentException("connectionId is required");
        }
        if (maxMessages < 1 || maxChunks < 1 || builtinChunkBytes < 1 || builtinChunksPerPath < 1
                || splitThreshold < 0 || failoverTimeoutNanos <= 0) {
            throw new IllegalArgumentException("invalid decomposition config: maxMessages=" + maxMessages
                    + " maxChunks=" + maxChunks + " chunkBytes=" + builtinChunkBytes + " chunksPerPath="
                    + builtinChunksPerPath + " splitThreshold=" + splitThreshold + " failover="
                    + failoverTimeoutNanos);
        }
        WrId.checkTag(wrIdTag);
    }
}
