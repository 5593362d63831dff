package dev.virtuoso.spi.verbs;

/**
 * A scatter/gather element ({@code struct ibv_sge}): a range of a registered region. Mutable and
 * reusable; owned by the WR that holds it.
 */
public final class IbvSge {
    private long addr;
    private int length;
    private int lkey;

    /** @return virtual address: {@link IbvMr#address()} plus an offset */
    public long addr() {
        return addr;
    }

    public IbvSge addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** @return length in bytes (unsigned 32-bit on the wire; here 0..2^31-1) */
    public int length() {
        return length;
    }

    public IbvSge length(int length) {
        this.length = length;
        return this;
    }

    /** @return the region's local key */
    public int lkey() {
        return lkey;
    }

    public IbvSge lkey(int lkey) {
        this.lkey = lkey;
        return this;
    }

    /**
     * Sets all three fields.
     *
     * @param addr virtual address
     * @param length bytes
     * @param lkey local key
     * @return this
     */
    public IbvSge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }
}
