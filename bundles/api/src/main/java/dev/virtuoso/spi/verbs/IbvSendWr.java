package dev.virtuoso.spi.verbs;

/**
 * A send work request ({@code struct ibv_send_wr}), mutable and reusable: fill it, post it, change
 * the address and length, post it again. It holds {@code maxSge} preallocated {@link IbvSge}s; only
 * the first {@link #numSge()} are used. Not thread-safe: one owner.
 */
public final class IbvSendWr {
    private long wrId;
    private IbvWrOpcode opcode = IbvWrOpcode.SEND;
    private int sendFlags;
    private final IbvSge[] sgList;
    private int numSge;
    private long remoteAddr;
    private int rkey;
    private int immData;

    /** Creates a WR with one SGE. */
    public IbvSendWr() {
        this(1);
    }

    /** @param maxSge number of preallocated SGEs (at least 1) */
    public IbvSendWr(int maxSge) {
        if (maxSge < 1) {
            throw new IllegalArgumentException("maxSge must be >= 1");
        }
        sgList = new IbvSge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new IbvSge();
        }
    }

    /** @return the caller's identifier, echoed in the completion */
    public long wrId() {
        return wrId;
    }

    public IbvSendWr wrId(long id) {
        this.wrId = id;
        return this;
    }

    public IbvWrOpcode opcode() {
        return opcode;
    }

    public IbvSendWr opcode(IbvWrOpcode op) {
        this.opcode = op;
        return this;
    }

    /** @return {@link IbvSendFlags} bits */
    public int sendFlags() {
        return sendFlags;
    }

    public IbvSendWr sendFlags(int flags) {
        this.sendFlags = flags;
        return this;
    }

    /**
     * @param i index below the capacity given at construction
     * @return the i-th SGE (mutable, owned by this WR)
     */
    public IbvSge sge(int i) {
        return sgList[i];
    }

    /** @return capacity of the SGE list */
    public int maxSge() {
        return sgList.length;
    }

    /** @return SGEs in use */
    public int numSge() {
        return numSge;
    }

    /** @param n SGEs in use, 0..{@link #maxSge()}; 0 means a zero-length message @return this */
    public IbvSendWr numSge(int n) {
        if (n < 0 || n > sgList.length) {
            throw new IllegalArgumentException("numSge out of range: " + n);
        }
        this.numSge = n;
        return this;
    }

    /** @return total bytes of the SGEs in use */
    public long totalLength() {
        long t = 0;
        for (int i = 0; i < numSge; i++) {
            t += sgList[i].length();
        }
        return t;
    }

    /** @return remote virtual address for RDMA operations */
    public long remoteAddr() {
        return remoteAddr;
    }

    public IbvSendWr remoteAddr(long addr) {
        this.remoteAddr = addr;
        return this;
    }

    /** @return remote key for RDMA operations */
    public int rkey() {
        return rkey;
    }

    public IbvSendWr rkey(int rkey) {
        this.rkey = rkey;
        return this;
    }

    /** @return immediate data (for the WITH_IMM opcodes) */
    public int immData() {
        return immData;
    }

    public IbvSendWr immData(int imm) {
        this.immData = imm;
        return this;
    }
}
