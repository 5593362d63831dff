package dev.virtuoso.reassembler.internal;

import java.nio.ByteBuffer;

import dev.virtuoso.api.MpStatus;

/**
 * Posted MP_RECVs indexed by sequence number modulo the table's current length, which starts at
 * {@link #INITIAL_ENTRIES} and doubles up to the limit when the live sequences fill it
 * ({@link #grow}: a connection may hold thousands of receives, usually holds a few).
 */
final class ReceiveTable {
    static final byte EMPTY = 0;
    static final byte POSTED = 1;
    static final byte DONE = 2;
    /** Entries a table starts with. */
    static final int INITIAL_ENTRIES = 16;

    private final int limit;
    long[] wrId;
    ByteBuffer[] region;
    int[] offset;
    int[] capacity;
    long[] addr;
    int[] rkey;
    boolean[] writable;
    byte[] state;
    MpStatus[] status;
    long[] length;
    int[] paths;
    String[] detail;

    /** @param limit most receives at once */
    ReceiveTable(int limit) {
        this.limit = limit;
        grow(0, 0, Math.min(limit, INITIAL_ENTRIES));
    }

    /** @return most receives at once */
    int limit() {
        return limit;
    }

    /** @return entries the table holds now */
    int length() {
        return state.length;
    }

    int index(long seq) {
        return (int) Long.remainderUnsigned(seq, state.length);
    }

    /**
     * Doubles the table (up to the limit), moving the entries of sequences {@code from..to-1} to
     * their new indexes.
     */
    void grow(long from, long to) {
        grow(from, to, (int) Math.min(limit, 2L * state.length));
    }

    private void grow(long from, long to, int n) {
        wrId = SequenceRing.regrow(wrId, new long[n], from, to);
        region = SequenceRing.regrow(region, new ByteBuffer[n], from, to);
        offset = SequenceRing.regrow(offset, new int[n], from, to);
        capacity = SequenceRing.regrow(capacity, new int[n], from, to);
        addr = SequenceRing.regrow(addr, new long[n], from, to);
        rkey = SequenceRing.regrow(rkey, new int[n], from, to);
        writable = SequenceRing.regrow(writable, new boolean[n], from, to);
        state = SequenceRing.regrow(state, new byte[n], from, to);
        status = SequenceRing.regrow(status, new MpStatus[n], from, to);
        length = SequenceRing.regrow(length, new long[n], from, to);
        paths = SequenceRing.regrow(paths, new int[n], from, to);
        detail = SequenceRing.regrow(detail, new String[n], from, to);
    }

    void done(int i, MpStatus s, long len, int pathCount, String why) {
        state[i] = DONE;
        status[i] = s;
        length[i] = len;
        paths[i] = pathCount;
        detail[i] = why;
    }

    void clear(int i) {
        state[i] = EMPTY;
        region[i] = null;
        detail[i] = null;
    }
}
