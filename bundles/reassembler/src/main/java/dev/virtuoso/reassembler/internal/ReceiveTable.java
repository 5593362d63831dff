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
        allocate(Math.min(limit, INITIAL_ENTRIES));
    }

    private void allocate(int n) {
        wrId = new long[n];
        region = new ByteBuffer[n];
        offset = new int[n];
        capacity = new int[n];
        addr = new long[n];
        rkey = new int[n];
        writable = new boolean[n];
        state = new byte[n];
        status = new MpStatus[n];
        length = new long[n];
        paths = new int[n];
        detail = new String[n];
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
        long[] oWrId = wrId;
        ByteBuffer[] oRegion = region;
        int[] oOffset = offset;
        int[] oCapacity = capacity;
        long[] oAddr = addr;
        int[] oRkey = rkey;
        boolean[] oWritable = writable;
        byte[] oState = state;
        MpStatus[] oStatus = status;
        long[] oLength = length;
        int[] oPaths = paths;
        String[] oDetail = detail;
        allocate((int) Math.min(limit, 2L * oState.length));
        for (long q = from; q < to; q++) {
            int a = (int) Long.remainderUnsigned(q, oState.length);
            int b = index(q);
            wrId[b] = oWrId[a];
            region[b] = oRegion[a];
            offset[b] = oOffset[a];
            capacity[b] = oCapacity[a];
            addr[b] = oAddr[a];
            rkey[b] = oRkey[a];
            writable[b] = oWritable[a];
            state[b] = oState[a];
            status[b] = oStatus[a];
            length[b] = oLength[a];
            paths[b] = oPaths[a];
            detail[b] = oDetail[a];
        }
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
