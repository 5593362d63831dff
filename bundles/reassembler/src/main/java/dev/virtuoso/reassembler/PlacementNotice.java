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
    boolean carriesSend;

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
     * @return true if this control message carries the MP_SEND last reserved
     *     {@link Reassembly#INLINE}: that MP_SEND ends when this message's SEND ends for good
     *     ({@link Reassembly#inlinePending()} false after {@link Reassembly#noticeFinished})
     * @since 3.1
     */
    public boolean carriesSend() {
        return carriesSend;
    }

    /**
     * Fills the notice (used by reassembly implementations); {@link #carriesSend()} becomes false.
     *
     * @return this
     */
    public PlacementNotice set(int slot, long localAddr, int lkey, int length, int immData, long sequence) {
        return set(slot, localAddr, lkey, length, immData, sequence, false);
    }

    /**
     * Fills the notice (used by reassembly implementations).
     *
     * @return this
     * @since 3.1
     */
    public PlacementNotice set(int slot, long localAddr, int lkey, int length, int immData, long sequence,
            boolean carriesSend) {
        this.slot = slot;
        this.localAddr = localAddr;
        this.lkey = lkey;
        this.length = length;
        this.immData = immData;
        this.sequence = sequence;
        this.carriesSend = carriesSend;
        return this;
    }
}
