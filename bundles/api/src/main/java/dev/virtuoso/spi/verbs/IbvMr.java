package dev.virtuoso.spi.verbs;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A registered memory region ({@code struct ibv_mr}). Addresses given in SGEs and in RETHs are
 * virtual addresses in {@code [address(), address() + length())}; the provider maps them onto the
 * registered buffer. The soft RNIC uses a synthetic base address, DiSNI the buffer's native one:
 * callers must only ever compute {@code address() + offset}.
 *
 * <p>Thread-safe. {@link #close()} deregisters ({@code ibv_dereg_mr}); later use of the keys fails
 * with a protection or remote access error, and the rkey is not reused while the region lives.
 */
@ProviderType
public interface IbvMr extends AutoCloseable {

    /** @return the virtual address of the first registered byte */
    long address();

    /** @return the registered length in bytes */
    int length();

    /** @return the local key, used in {@link IbvSge#lkey} */
    int lkey();

    /** @return the remote key, given to peers for RDMA READ/WRITE */
    int rkey();

    /** @return the {@link IbvAccess} flags granted at registration */
    int access();

    /**
     * The registered memory.
     *
     * @return a duplicate of the registered buffer (position 0, limit {@link #length()})
     */
    ByteBuffer buffer();

    /** Deregisters the region. Idempotent. */
    @Override
    void close();
}
