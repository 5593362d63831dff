package dev.virtuoso.spi.verbs;

/**
 * Device capabilities ({@code struct ibv_device_attr}, the subset the core needs), as returned by
 * {@link IbvContext#queryDevice()}. The core decides what to use from these values, never from the
 * provider's name: with {@link #maxSrq()} {@code == 0} it gives every QP its own receive queue.
 *
 * <p>Mutable value object filled by the provider. {@code 0} means "not supported"; {@code -1} that
 * the provider cannot tell (a binding without {@code ibv_query_device}); the device still enforces
 * its limits when objects are created.
 */
public final class IbvDeviceAttr {
    private int maxQpWr;
    private int maxSge;
    private int maxCqe;
    private int maxSrq;
    private int maxSrqWr;
    private int maxSrqSge;
    private int qpRateLimitMin;
    private int qpRateLimitMax;

    /** @return largest send or receive queue of a QP ({@code max_qp_wr}) */
    public int maxQpWr() {
        return maxQpWr;
    }

    /** @param n {@code max_qp_wr} @return this */
    public IbvDeviceAttr maxQpWr(int n) {
        maxQpWr = n;
        return this;
    }

    /** @return most scatter/gather entries per WR ({@code max_sge}) */
    public int maxSge() {
        return maxSge;
    }

    /** @param n {@code max_sge} @return this */
    public IbvDeviceAttr maxSge(int n) {
        maxSge = n;
        return this;
    }

    /** @return largest CQ ({@code max_cqe}) */
    public int maxCqe() {
        return maxCqe;
    }

    /** @param n {@code max_cqe} @return this */
    public IbvDeviceAttr maxCqe(int n) {
        maxCqe = n;
        return this;
    }

    /**
     * @return how many shared receive queues the device can hold ({@code max_srq}); 0 if it has
     *     none, in which case {@link IbvPd#createSrq} fails with {@link VerbsException#EOPNOTSUPP}
     */
    public int maxSrq() {
        return maxSrq;
    }

    /** @param n {@code max_srq} @return this */
    public IbvDeviceAttr maxSrq(int n) {
        maxSrq = n;
        return this;
    }

    /** @return largest SRQ ({@code max_srq_wr}; 0 without SRQs) */
    public int maxSrqWr() {
        return maxSrqWr;
    }

    /** @param n {@code max_srq_wr} @return this */
    public IbvDeviceAttr maxSrqWr(int n) {
        maxSrqWr = n;
        return this;
    }

    /** @return most SGEs per SRQ receive ({@code max_srq_sge}; 0 without SRQs) */
    public int maxSrqSge() {
        return maxSrqSge;
    }

    /** @param n {@code max_srq_sge} @return this */
    public IbvDeviceAttr maxSrqSge(int n) {
        maxSrqSge = n;
        return this;
    }

    @Override
    public String toString() {
        return "IbvDeviceAttr[maxQpWr=" + maxQpWr + ", maxSge=" + maxSge + ", maxCqe=" + maxCqe + ", maxSrq="
                + maxSrq + ", maxSrqWr=" + maxSrqWr + ", maxSrqSge=" + maxSrqSge + "]";
    }

    /**
     * @return the lowest per-QP send rate limit in kbit/s ({@code packet_pacing_caps.qp_rate_limit_min});
     *     0 if the device cannot pace
     */
    public int qpRateLimitMin() {
        return qpRateLimitMin;
    }

    /** @param kbps {@code qp_rate_limit_min} @return this */
    public IbvDeviceAttr qpRateLimitMin(int kbps) {
        qpRateLimitMin = kbps;
        return this;
    }

    /**
     * @return the highest per-QP send rate limit in kbit/s ({@code packet_pacing_caps.qp_rate_limit_max});
     *     0 if the device cannot pace, in which case {@link IbvQpAttr#RATE_LIMIT} is refused
     */
    public int qpRateLimitMax() {
        return qpRateLimitMax;
    }

    /** @param kbps {@code qp_rate_limit_max} @return this */
    public IbvDeviceAttr qpRateLimitMax(int kbps) {
        qpRateLimitMax = kbps;
        return this;
    }
}
