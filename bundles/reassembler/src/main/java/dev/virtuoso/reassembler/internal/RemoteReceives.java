package dev.virtuoso.reassembler.internal;

/** The peer's advertised receive buffers, indexed by sequence number modulo the peer's capacity. */
final class RemoteReceives {
    final long[] addr;
    final int[] rkey;
    final int[] capacity;
    final boolean[] writable;
    /** Sequence number the next advertisement must carry. */
    long nextAdvert;
    /** Sequence number of the next MP_SEND. */
    long nextSend;

    RemoteReceives(int size) {
        addr = new long[size];
        rkey = new int[size];
        capacity = new int[size];
        writable = new boolean[size];
    }

    int size() {
        return addr.length;
    }

    int index(long seq) {
        return (int) Long.remainderUnsigned(seq, addr.length);
    }

    boolean full() {
        return nextAdvert - nextSend >= addr.length;
    }

    boolean available() {
        return nextSend < nextAdvert;
    }
}
