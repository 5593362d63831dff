package dev.virtuoso.spi.verbs;

/** Send flags ({@code enum ibv_send_flags}), combinable with {@code |}. */
public final class IbvSendFlags {
    /** Wait for prior RDMA READs on this QP to complete before executing this WR. */
    public static final int FENCE = 1;
    /** Generate a completion on success (failures always complete). */
    public static final int SIGNALED = 1 << 1;
    /** Set the solicited-event bit for the responder. */
    public static final int SOLICITED = 1 << 2;
    /** Copy the payload at post time (small SENDs); lkey is then ignored. */
    public static final int INLINE = 1 << 3;

    private IbvSendFlags() {
    }
}
