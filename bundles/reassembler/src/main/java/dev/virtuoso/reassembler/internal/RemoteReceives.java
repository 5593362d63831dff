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
        int n = Math.min(limit, INITIAL_ENTRIES);
        addr = new long[n];
        rkey = new int[n];
        capacity = new int[n];
        writable = new boolean[n];
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
        if (nextAdvert - nextSend < addr.length) {
            return;
        }
        long[] oa = addr;
        int[] or = rkey;
        int[] oc = capacity;
        boolean[] ow = writable;
        int n = (int) Math.min(limit, 2L * oa.length);
        addr = new long[n];
        rkey = new int[n];
        capacity = new int[n];
        writable = new boolean[n];
        for (long q = nextSend; q < nextAdvert; q++) {
            int a = (int) Long.remainderUnsigned(q, oa.length);
            int b = index(q);
            addr[b] = oa[a];
            rkey[b] = or[a];
            capacity[b] = oc[a];
            writable[b] = ow[a];
        }
    }
}
