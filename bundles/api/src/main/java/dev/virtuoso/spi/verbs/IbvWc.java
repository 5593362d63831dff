package dev.virtuoso.spi.verbs;

/**
 * A work completion ({@code struct ibv_wc}), filled by {@link IbvCq#pollCq}. Mutable and reused by
 * the poller: copy out what you need before polling again. For error completions only
 * {@link #wrId()}, {@link #status()} and {@link #qpNum()} are meaningful.
 */
public final class IbvWc {
    /** {@link #wcFlags()} bit: {@link #immData()} is valid. */
    public static final int WITH_IMM = 1 << 1;

    private long wrId;
    private IbvWcStatus status = IbvWcStatus.SUCCESS;
    private IbvWcOpcode opcode = IbvWcOpcode.SEND;
    private int vendorErr;
    private int byteLen;
    private int immData;
    private int qpNum;
    private int srcQp;
    private int wcFlags;

    public long wrId() {
        return wrId;
    }

    public IbvWcStatus status() {
        return status;
    }

    public IbvWcOpcode opcode() {
        return opcode;
    }

    /** @return provider-specific detail for errors (0 if none) */
    public int vendorErr() {
        return vendorErr;
    }

    /** @return bytes received (receive completions) or transferred */
    public int byteLen() {
        return byteLen;
    }

    /** @return immediate data in host order, valid when {@link #WITH_IMM} is set */
    public int immData() {
        return immData;
    }

    /** @return the local QP the completion belongs to */
    public int qpNum() {
        return qpNum;
    }

    /** @return the remote QP (receive completions) */
    public int srcQp() {
        return srcQp;
    }

    public int wcFlags() {
        return wcFlags;
    }

    /** @return true if this completion carries immediate data */
    public boolean hasImm() {
        return (wcFlags & WITH_IMM) != 0;
    }

    /**
     * Fills every field; used by providers.
     *
     * @return this
     */
    public IbvWc set(long wrId, IbvWcStatus status, IbvWcOpcode opcode, int byteLen, int immData,
            int wcFlags, int qpNum, int srcQp, int vendorErr) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLen = byteLen;
        this.immData = immData;
        this.wcFlags = wcFlags;
        this.qpNum = qpNum;
        this.srcQp = srcQp;
        this.vendorErr = vendorErr;
        return this;
    }

    /**
     * Copies another completion.
     *
     * @param o source
     * @return this
     */
    public IbvWc copyFrom(IbvWc o) {
        return set(o.wrId, o.status, o.opcode, o.byteLen, o.immData, o.wcFlags, o.qpNum, o.srcQp,
                o.vendorErr);
    }

    @Override
    public String toString() {
        return "IbvWc[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen="
                + byteLen + ", qp=" + qpNum + (hasImm() ? ", imm=" + Integer.toHexString(immData) : "")
                + "]";
    }
}
