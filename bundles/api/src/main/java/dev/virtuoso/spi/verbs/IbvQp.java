package dev.virtuoso.spi.verbs;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A reliable-connected queue pair ({@code struct ibv_qp}, type {@code IBV_QPT_RC}).
 *
 * <p>Threading: {@link #postSend} and {@link #postRecv} may be called from any thread but are
 * designed for one posting thread per QP; a provider must not allocate on them in steady state.
 * Work requests are copied during the call, so the caller may reuse them at once.
 *
 * <p>Errors: a WR that fails completes on the QP's CQ with an error status (even unsignalled), the
 * QP moves to {@link IbvQpState#ERR} and every other outstanding WR completes with
 * {@link IbvWcStatus#WR_FLUSH_ERR}. Posting to a QP in ERR succeeds and completes at once with
 * WR_FLUSH_ERR, as on hardware.
 */
@ProviderType
public interface IbvQp extends AutoCloseable {

    /** @return the 24-bit QP number */
    int qpNum();

    /** @return the current state */
    IbvQpState state();

    /**
     * Modifies attributes and state, as {@code ibv_modify_qp}.
     *
     * @param attr attribute values (only masked ones are read)
     * @param attrMask OR of {@link IbvQpAttr} mask constants
     * @throws VerbsException {@link VerbsException#EINVAL} for an illegal transition or a missing or
     *     invalid attribute
     */
    void modifyQp(IbvQpAttr attr, int attrMask) throws VerbsException;

    /**
     * Reads the current attributes, as {@code ibv_query_qp}.
     *
     * @param out filled with the current values
     * @throws VerbsException if the QP is destroyed
     */
    void queryQp(IbvQpAttr out) throws VerbsException;

    /**
     * Posts one send WR, as {@code ibv_post_send}.
     *
     * @param wr the work request; copied during the call
     * @throws VerbsException {@link VerbsException#ENOMEM} when the send queue is full,
     *     {@link VerbsException#EINVAL} for invalid fields (too many SGEs, unknown opcode) or a QP not
     *     yet in RTS
     */
    void postSend(IbvSendWr wr) throws VerbsException;

    /**
     * Posts one receive WR, as {@code ibv_post_recv}.
     *
     * @param wr the work request; copied during the call
     * @throws VerbsException {@link VerbsException#ENOMEM} when the receive queue is full,
     *     {@link VerbsException#EINVAL} if the QP uses an SRQ or is in RESET
     */
    void postRecv(IbvRecvWr wr) throws VerbsException;

    /** @return per-QP counters (live view) */
    VerbsCounters counters();

    /** Destroys the QP, as {@code ibv_destroy_qp}; outstanding work is flushed. Idempotent. */
    @Override
    void close();
}
