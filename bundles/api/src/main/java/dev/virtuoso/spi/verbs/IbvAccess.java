package dev.virtuoso.spi.verbs;

/** Memory-region and QP access flags ({@code enum ibv_access_flags}), combinable with {@code |}. */
public final class IbvAccess {
    /** The local RNIC may write the region (needed for receives and READ results). */
    public static final int LOCAL_WRITE = 1;
    /** Peers may RDMA WRITE into the region (requires {@link #LOCAL_WRITE}). */
    public static final int REMOTE_WRITE = 1 << 1;
    /** Peers may RDMA READ from the region. */
    public static final int REMOTE_READ = 1 << 2;
    /** Peers may perform atomics on the region (not used by Virtuoso). */
    public static final int REMOTE_ATOMIC = 1 << 3;

    /** Every flag this SPI knows. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private IbvAccess() {
    }
}
