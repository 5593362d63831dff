package dev.virtuoso.decomposer;

import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * Posts chunk work requests on path QPs; implemented by the QP manager. Called on the engine
 * thread only; must not allocate.
 */
public interface ChunkTransport {

    /**
     * Posts one signalled send WR with a single SGE (or none when {@code length == 0}).
     *
     * @param path path slot
     * @param wrId identifier to echo in the completion
     * @param opcode RDMA_WRITE, RDMA_READ or SEND_WITH_IMM
     * @param localAddr virtual address in the local registered region
     * @param length bytes
     * @param lkey local key of that region
     * @param remoteAddr remote virtual address (RDMA operations)
     * @param rkey remote key (RDMA operations)
     * @param immData immediate data (WITH_IMM opcodes)
     * @return true if posted; false if the path cannot take it (its QP failed or its queue is
     *     full); the transport reports a broken QP through {@link PathTable#state}
     */
    boolean post(int path, long wrId, IbvWrOpcode opcode, long localAddr, int length, int lkey,
            long remoteAddr, int rkey, int immData);

    /**
     * @param path path slot
     * @return the path's send-queue depth (an upper bound of chunks in flight on it)
     */
    int sendQueueDepth(int path);

    /**
     * A completion showed that the path's QP is in error (it stops carrying chunks). Called once per
     * failure, while the path is {@link dev.virtuoso.api.PathState#UP}; the transport (the core,
     * the one writer of path state) marks it {@link dev.virtuoso.api.PathState#RECOVERING} before it
     * returns.
     *
     * @param path path slot
     * @param status the completion status that revealed it
     */
    void pathFailed(int path, IbvWcStatus status);
}
