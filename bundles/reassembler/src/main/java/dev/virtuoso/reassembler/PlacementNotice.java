package dev.virtuoso.reassembler;

/**
 * A placement notice or a control message to post, filled by {@link Reassembly#nextNotice}: one SEND_WITH_IMM of
 * {@link #length()} bytes from {@link #localAddr()} ({@link #lkey()}) with immediate
 * {@link #immData()}. Mutable, reused by the caller.
 *
 * @since 2.1
 */
public final class PlacementNotice {
    int slot;
    long localAddr;
    int lkey;
    int length;
    int immData;
    long sequence;

    /** @return the notice's slot (pass it back to {@link Reassembly#noticeFinished}) */
    public int slot() {
        return slot;
    }

    /** @return address of the notice's payload in registered memory */
    public long localAddr() {
        return localAddr;
    }

    /** @return local key of the payload's region */
    public int lkey() {
        return lkey;
    }

    /** @return payload bytes */
    public int length() {
        return length;
    }

    /** @return the SEND's immediate data */
    public int immData() {
        return immData;
    }

    /** @return sequence number of the MP_SEND whose placement it announces (-1 for a control message) */
    public long sequence() {
        return sequence;
    }

    /**
     * Fills the notice (used by reassembly implementations).
     *
     * @return this
     */
    public PlacementNotice set(int slot, long localAddr, int lkey, int length, int immData, long sequence) {
        this.slot = slot;
        this.localAddr = localAddr;
        this.lkey = lkey;
        this.length = length;
        this.immData = immData;
        this.sequence = sequence;
        return this;
    }
}
