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

    /** @return the message's sequence number (pass it back to {@link Reassembly#sendFinished}) */
    public long sequence() {
        return sequence;
    }

    /** @return immediate data of a small message's SEND */
    public int immData() {
        return immData;
    }

    /** @return address of the peer's receive buffer (large messages) */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** @return rkey of the peer's receive buffer (large messages) */
    public int rkey() {
        return rkey;
    }

    /**
     * Fills the target (used by reassembly implementations).
     *
     * @return this
     */
    public SendTarget set(long sequence, int immData, long remoteAddr, int rkey) {
        this.sequence = sequence;
        this.immData = immData;
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }
}
