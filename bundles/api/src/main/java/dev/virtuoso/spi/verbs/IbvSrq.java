package dev.virtuoso.spi.verbs;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A shared receive queue ({@code struct ibv_srq}): receive WRs posted once, consumed FIFO by any
 * QP attached to it; the completion's {@link IbvWc#qpNum()} tells which QP consumed it.
 *
 * <p>Thread-safe; WRs are copied during {@link #postSrqRecv}.
 */
@ProviderType
public interface IbvSrq extends AutoCloseable {

    /**
     * Posts a receive WR, as {@code ibv_post_srq_recv}.
     *
     * @param wr the work request; copied during the call
     * @throws VerbsException {@link VerbsException#ENOMEM} when full
     */
    void postSrqRecv(IbvRecvWr wr) throws VerbsException;

    /** Destroys the SRQ. Idempotent. */
    @Override
    void close();
}
