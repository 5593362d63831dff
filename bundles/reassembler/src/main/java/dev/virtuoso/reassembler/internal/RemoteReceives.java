package dev.virtuoso.reassembler.internal;

/**
 * The peer's advertised receive buffers, indexed by sequence number modulo the table's current
 * length, which starts at {@link #INITIAL_ENTRIES} and doubles up to the peer's limit when the
 * advertised, unused sequences fill it.
 */
final class RemoteReceives {
    /** Entries a table starts with. */
    static final int INITIAL_ENTRIES = 16;

    private final int limit;
    long[] addr;
    int[] rkey;
    int[] capacity;
    boolean[] writable;
    /** Sequence number the next advertisement must carry. */
    long nextAdvert;
    /** Sequence number of the next MP_SEND. */
    long nextSend;

    /** @param limit most receives the peer may advertise ahead (its maxReceives) */
    RemoteReceives(int limit) {
        this.limit = limit;
        grow(Math.min(limit, INITIAL_ENTRIES));
    }

    /** @return most receives the peer may advertise ahead */
    int size() {
        return limit;
    }

    int index(long seq) {
        return (int) Long.remainderUnsigned(seq, addr.length);
    }

    /** @return true if the peer advertised its limit of unused receives */
    boolean full() {
        return nextAdvert - nextSend >= limit;
    }

    boolean available() {
        return nextSend < nextAdvert;
    }

    /** Makes room for the advertisement of {@link #nextAdvert} (call when not {@link #full()}). */
    void ensureRoom() {
        if (nextAdvert - nextSend >= addr.length) {
            grow((int) Math.min(limit, 2L * addr.length));
        }
    }

    /** Moves the advertised, unused receives into arrays of {@code n} entries. */
    private void grow(int n) {
        addr = SequenceRing.regrow(addr, new long[n], nextSend, nextAdvert);
        rkey = SequenceRing.regrow(rkey, new int[n], nextSend, nextAdvert);
        capacity = SequenceRing.regrow(capacity, new int[n], nextSend, nextAdvert);
        writable = SequenceRing.regrow(writable, new boolean[n], nextSend, nextAdvert);
    }
}
