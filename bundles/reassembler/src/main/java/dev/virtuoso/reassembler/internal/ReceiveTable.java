package dev.virtuoso.reassembler.internal;

import java.nio.ByteBuffer;

import dev.virtuoso.api.MpStatus;

/** Posted MP_RECVs indexed by sequence number modulo the capacity. */
final class ReceiveTable {
    static final byte EMPTY = 0;
    static final byte POSTED = 1;
    static final byte DONE = 2;

    final long[] wrId;
    final ByteBuffer[] region;
    final int[] offset;
    final int[] capacity;
    final long[] addr;
    final int[] rkey;
    final boolean[] writable;
    final byte[] state;
    final MpStatus[] status;
    final long[] length;
    final int[] paths;
    final String[] detail;

    ReceiveTable(int size) {
        wrId = new long[size];
        region = new ByteBuffer[size];
        offset = new int[size];
        capacity = new int[size];
        addr = new long[size];
        rkey = new int[size];
        writable = new boolean[size];
        state = new byte[size];
        status = new MpStatus[size];
        length = new long[size];
        paths = new int[size];
        detail = new String[size];
    }

    int size() {
        return state.length;
    }

    int index(long seq) {
        return (int) Long.remainderUnsigned(seq, state.length);
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
