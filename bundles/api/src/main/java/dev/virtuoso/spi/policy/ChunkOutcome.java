package dev.virtuoso.spi.policy;

/** How a chunk (one verbs WR) ended, as policies see it. */
public enum ChunkOutcome {
    /** Completed successfully. */
    SUCCESS,
    /** Transport retries exhausted (RETRY_EXC_ERR): loss or a dead path. */
    RETRY_EXCEEDED,
    /** Receiver not ready retries exhausted. */
    RNR_RETRY_EXCEEDED,
    /** Flushed because its QP went to ERR; will be re-posted elsewhere. */
    FLUSHED,
    /** Any other failure. */
    ERROR
}
