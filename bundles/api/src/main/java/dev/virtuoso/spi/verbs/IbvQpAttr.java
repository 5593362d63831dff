package dev.virtuoso.spi.verbs;

/**
 * QP attributes for {@link IbvQp#modifyQp} and {@link IbvQp#queryQp} ({@code struct ibv_qp_attr}).
 * Which fields a modify applies is chosen by an attribute mask of the {@code IBV_QP_*}-named
 * constants below, exactly as in libibverbs. Required masks per transition (RC):
 * <ul>
 * <li>RESET to INIT: {@code STATE | PKEY_INDEX | PORT | ACCESS_FLAGS}</li>
 * <li>INIT to RTR: {@code STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC |
 * MIN_RNR_TIMER}</li>
 * <li>RTR to RTS: {@code STATE | TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC}</li>
 * <li>any state to ERR or RESET: {@code STATE}</li>
 * </ul>
 * A missing required attribute or an illegal transition fails with {@link VerbsException#EINVAL}.
 * Mutable, owned by the caller.
 */
public final class IbvQpAttr {
    public static final int STATE = 1;
    public static final int CUR_STATE = 1 << 1;
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    public static final int ACCESS_FLAGS = 1 << 3;
    public static final int PKEY_INDEX = 1 << 4;
    public static final int PORT = 1 << 5;
    public static final int QKEY = 1 << 6;
    public static final int AV = 1 << 7;
    public static final int PATH_MTU = 1 << 8;
    public static final int TIMEOUT = 1 << 9;
    public static final int RETRY_CNT = 1 << 10;
    public static final int RNR_RETRY = 1 << 11;
    public static final int RQ_PSN = 1 << 12;
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int ALT_PATH = 1 << 14;
    public static final int MIN_RNR_TIMER = 1 << 15;
    public static final int SQ_PSN = 1 << 16;
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int PATH_MIG_STATE = 1 << 18;
    public static final int CAP = 1 << 19;
    public static final int DEST_QPN = 1 << 20;
    /**
     * Packet pacing ({@code IBV_QP_RATE_LIMIT}): allowed from RTR to RTS and from RTS to RTS on a
     * device whose {@link IbvDeviceAttr#qpRateLimitMax()} is not 0.
     */
    public static final int RATE_LIMIT = 1 << 25;

    /** Mask for RESET to INIT. */
    public static final int MASK_INIT = STATE | PKEY_INDEX | PORT | ACCESS_FLAGS;
    /** Mask for INIT to RTR. */
    public static final int MASK_RTR = STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC
            | MIN_RNR_TIMER;
    /** Mask for RTR to RTS. */
    public static final int MASK_RTS = STATE | TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN
            | MAX_QP_RD_ATOMIC;

    private IbvQpState qpState = IbvQpState.RESET;
    private IbvMtu pathMtu = IbvMtu.MTU_4096;
    private int qpAccessFlags;
    private int pkeyIndex;
    private int portNum = 1;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int timeout = 14;
    private int retryCnt = 7;
    private int rnrRetry = 7;
    private int minRnrTimer = 12;
    private int maxRdAtomic = 16;
    private int maxDestRdAtomic = 16;
    private int rateLimit;
    private final IbvAhAttr ahAttr = new IbvAhAttr();

    public IbvQpState qpState() {
        return qpState;
    }

    /** @param s target state @return this */
    public IbvQpAttr qpState(IbvQpState s) {
        this.qpState = s;
        return this;
    }

    public IbvMtu pathMtu() {
        return pathMtu;
    }

    /** @param mtu path MTU, 256..4096 (default 4096) @return this */
    public IbvQpAttr pathMtu(IbvMtu mtu) {
        this.pathMtu = mtu;
        return this;
    }

    public int qpAccessFlags() {
        return qpAccessFlags;
    }

    /** @param flags {@link IbvAccess} operations remote peers may perform through this QP @return this */
    public IbvQpAttr qpAccessFlags(int flags) {
        this.qpAccessFlags = flags;
        return this;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** @param i P_Key table index (0: default P_Key 0xFFFF) @return this */
    public IbvQpAttr pkeyIndex(int i) {
        this.pkeyIndex = i;
        return this;
    }

    public int portNum() {
        return portNum;
    }

    /** @param p device port, 1-based @return this */
    public IbvQpAttr portNum(int p) {
        this.portNum = p;
        return this;
    }

    public int rqPsn() {
        return rqPsn;
    }

    /** @param psn first PSN expected from the peer (24 bits) @return this */
    public IbvQpAttr rqPsn(int psn) {
        this.rqPsn = psn;
        return this;
    }

    public int sqPsn() {
        return sqPsn;
    }

    /** @param psn first PSN this QP sends (24 bits) @return this */
    public IbvQpAttr sqPsn(int psn) {
        this.sqPsn = psn;
        return this;
    }

    public int destQpNum() {
        return destQpNum;
    }

    /** @param qpn the peer QP number (24 bits) @return this */
    public IbvQpAttr destQpNum(int qpn) {
        this.destQpNum = qpn;
        return this;
    }

    public int timeout() {
        return timeout;
    }

    /**
     * @param t local ACK timeout exponent: 4.096 us x 2^t; 0 disables the retransmit timer; 0..31
     * @return this
     */
    public IbvQpAttr timeout(int t) {
        this.timeout = t;
        return this;
    }

    public int retryCnt() {
        return retryCnt;
    }

    /** @param n retransmissions after a timeout or NAK before RETRY_EXC_ERR, 0..7 @return this */
    public IbvQpAttr retryCnt(int n) {
        this.retryCnt = n;
        return this;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    /** @param n retries after an RNR NAK before RNR_RETRY_EXC_ERR, 0..7, 7 = infinite @return this */
    public IbvQpAttr rnrRetry(int n) {
        this.rnrRetry = n;
        return this;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    /** @param code RNR NAK timer code (0..31) this QP asks senders to wait @return this */
    public IbvQpAttr minRnrTimer(int code) {
        this.minRnrTimer = code;
        return this;
    }

    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /** @param n outstanding RDMA READs this QP may issue @return this */
    public IbvQpAttr maxRdAtomic(int n) {
        this.maxRdAtomic = n;
        return this;
    }

    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /** @param n outstanding RDMA READs this QP serves (its replay ring size) @return this */
    public IbvQpAttr maxDestRdAtomic(int n) {
        this.maxDestRdAtomic = n;
        return this;
    }

    /** @return the send rate limit in kbit/s ({@code rate_limit}); 0 for none */
    public int rateLimit() {
        return rateLimit;
    }

    /**
     * @param kbps the most this QP may send, in kbit/s of packets on the wire (headers included),
     *     within the device's {@link IbvDeviceAttr#qpRateLimitMin()} ..
     *     {@link IbvDeviceAttr#qpRateLimitMax()}; 0 removes the limit
     * @return this
     */
    public IbvQpAttr rateLimit(int kbps) {
        this.rateLimit = kbps;
        return this;
    }

    /** @return the address vector (mutable, part of this object) */
    public IbvAhAttr ahAttr() {
        return ahAttr;
    }
}
