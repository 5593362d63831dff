package dev.virtuoso.spi.verbs;

/**
 * A receive work request ({@code struct ibv_recv_wr}), mutable and reusable, with preallocated
 * SGEs. Not thread-safe: one owner.
 */
public final class IbvRecvWr {
    private long wrId;
    private final IbvSge[] sgList;
    private int numSge;

    /** Creates a WR with one SGE. */
    public IbvRecvWr() {
        this(1);
    }

    /** @param maxSge number of preallocated SGEs (at least 1) */
    public IbvRecvWr(int maxSge) {
        if (maxSge < 1) {
            throw new IllegalArgumentException("maxSge must be >= 1");
        }
        sgList = new IbvSge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new IbvSge();
        }
    }

    public long wrId() {
        return wrId;
    }

    public IbvRecvWr wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** @param i index below the capacity @return the i-th SGE */
    public IbvSge sge(int i) {
        return sgList[i];
    }

    public int maxSge() {
        return sgList.length;
    }

    public int numSge() {
        return numSge;
    }

    /** @param n SGEs in use; 0 accepts only zero-length messages and WRITE_WITH_IMM @return this */
    public IbvRecvWr numSge(int n) {
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
}
