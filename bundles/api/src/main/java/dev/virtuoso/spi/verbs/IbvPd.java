package dev.virtuoso.spi.verbs;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A protection domain ({@code struct ibv_pd}). Memory regions, QPs and SRQs created in one PD can
 * be used together; Virtuoso puts all QPs of a multipath connection in one PD so any path can carry
 * any byte of a registered region.
 *
 * <p>Thread-safe. Unlike {@code ibv_dealloc_pd}, {@link #close()} does not refuse a PD in use:
 * it destroys the PD's remaining QPs (outstanding work is flushed), SRQs and regions first, so a
 * disconnect or bundle stop always releases everything.
 */
@ProviderType
public interface IbvPd extends AutoCloseable {

    /**
     * Registers memory, as {@code ibv_reg_mr}.
     *
     * @param buffer a direct buffer; its position..limit is registered. The caller keeps ownership
     *     of the memory and must not release it before deregistering.
     * @param access {@link IbvAccess} flags; remote write requires local write, as in libibverbs
     * @return the region with its lkey and rkey
     * @throws VerbsException {@link VerbsException#EINVAL} for a heap buffer, an empty range or
     *     invalid flags
     */
    IbvMr regMr(ByteBuffer buffer, int access) throws VerbsException;

    /**
     * Creates an RC queue pair in state RESET, as {@code ibv_create_qp}.
     *
     * @param attr initial attributes: CQs, optional SRQ, capacities
     * @return the QP owned by the caller
     * @throws VerbsException if attributes are invalid or exceed device limits
     */
    IbvQp createQp(IbvQpInitAttr attr) throws VerbsException;

    /**
     * Creates a shared receive queue, as {@code ibv_create_srq}.
     *
     * @param maxWr maximum outstanding receive WRs
     * @param maxSge maximum scatter entries per receive WR
     * @return the SRQ owned by the caller
     * @throws VerbsException if limits are invalid; {@link VerbsException#EOPNOTSUPP} if the device
     *     has no SRQs ({@link IbvDeviceAttr#maxSrq()} is 0)
     */
    IbvSrq createSrq(int maxWr, int maxSge) throws VerbsException;

    /** Deallocates the PD and whatever is still created in it. Idempotent. */
    @Override
    void close();
}
