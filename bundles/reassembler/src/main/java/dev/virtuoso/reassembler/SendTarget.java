package dev.virtuoso.reassembler;

/**
 * Where the next MP_SEND goes, filled by {@link Reassembly#reserveSend}. Mutable, reused by the
 * caller.
 */
public final class SendTarget {
    long sequence;
    int immData;
    long remoteAddr;
    int rkey;
    boolean direct;

    /** @return the message's sequence number (pass it back to {@link Reassembly#sendFinished}) */
    public long sequence() {
        return sequence;
    }

    /** @return immediate data of a small message's SEND */
    public int immData() {
        return immData;
    }

    /**
     * @return address of the peer's receive buffer (large messages, and small ones when
     *     {@link #direct()})
     */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** @return rkey of the peer's receive buffer (large messages, and small ones when {@link #direct()}) */
    public int rkey() {
        return rkey;
    }

    /**
     * @return true if a small message may go as one RDMA WRITE with immediate ({@link #immData()})
     *     of its bytes to {@link #remoteAddr()} / {@link #rkey()}: the peer's receive buffer is
     *     remotely writable and long enough, so the peer need not copy it out of a slot
     * @since 2.2
     */
    public boolean direct() {
        return direct;
    }

    /**
     * Fills the target (used by reassembly implementations); {@link #direct()} becomes false.
     *
     * @return this
     */
    public SendTarget set(long sequence, int immData, long remoteAddr, int rkey) {
        return set(sequence, immData, remoteAddr, rkey, false);
    }

    /**
     * Fills the target (used by reassembly implementations).
     *
     * @return this
     * @since 2.2
     */
    public SendTarget set(long sequence, int immData, long remoteAddr, int rkey, boolean direct) {
        this.sequence = sequence;
        this.immData = immData;
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.direct = direct;
        return this;
    }
}
