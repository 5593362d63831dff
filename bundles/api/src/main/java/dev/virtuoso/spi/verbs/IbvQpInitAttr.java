package dev.virtuoso.spi.verbs;

/**
 * Attributes for {@link IbvPd#createQp} ({@code struct ibv_qp_init_attr}); only RC QPs exist here.
 * A mutable value object owned by the caller; the provider copies it.
 */
public final class IbvQpInitAttr {
    private IbvCq sendCq;
    private IbvCq recvCq;
    private IbvSrq srq;
    private int maxSendWr = 256;
    private int maxRecvWr = 256;
    private int maxSendSge = 1;
    private int maxRecvSge = 1;
    private int maxInlineData;
    private boolean sqSigAll;

    public IbvCq sendCq() {
        return sendCq;
    }

    /** @param cq CQ for send completions (required) @return this */
    public IbvQpInitAttr sendCq(IbvCq cq) {
        this.sendCq = cq;
        return this;
    }

    public IbvCq recvCq() {
        return recvCq;
    }

    /** @param cq CQ for receive completions (required; may be the send CQ) @return this */
    public IbvQpInitAttr recvCq(IbvCq cq) {
        this.recvCq = cq;
        return this;
    }

    public IbvSrq srq() {
        return srq;
    }

    /** @param srq shared receive queue, or {@code null} for a private receive queue @return this */
    public IbvQpInitAttr srq(IbvSrq srq) {
        this.srq = srq;
        return this;
    }

    public int maxSendWr() {
        return maxSendWr;
    }

    /** @param n send queue depth (outstanding send WRs) @return this */
    public IbvQpInitAttr maxSendWr(int n) {
        this.maxSendWr = n;
        return this;
    }

    public int maxRecvWr() {
        return maxRecvWr;
    }

    /** @param n receive queue depth (ignored with an SRQ) @return this */
    public IbvQpInitAttr maxRecvWr(int n) {
        this.maxRecvWr = n;
        return this;
    }

    public int maxSendSge() {
        return maxSendSge;
    }

    /** @param n gather entries per send WR @return this */
    public IbvQpInitAttr maxSendSge(int n) {
        this.maxSendSge = n;
        return this;
    }

    public int maxRecvSge() {
        return maxRecvSge;
    }

    /** @param n scatter entries per receive WR @return this */
    public IbvQpInitAttr maxRecvSge(int n) {
        this.maxRecvSge = n;
        return this;
    }

    public int maxInlineData() {
        return maxInlineData;
    }

    /** @param n largest payload that may be posted {@link IbvSendFlags#INLINE} @return this */
    public IbvQpInitAttr maxInlineData(int n) {
        this.maxInlineData = n;
        return this;
    }

    public boolean sqSigAll() {
        return sqSigAll;
    }

    /** @param all every send WR generates a completion, signalled or not @return this */
    public IbvQpInitAttr sqSigAll(boolean all) {
        this.sqSigAll = all;
        return this;
    }
}
