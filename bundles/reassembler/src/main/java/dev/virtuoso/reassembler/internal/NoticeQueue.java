package dev.virtuoso.reassembler.internal;

/**
 * Reports (SEND_DONE / SEND_FAILED) and due notices waiting to be sent: a FIFO ring that starts
 * at {@link #INITIAL_ENTRIES} and doubles up to its limit when full (the limit, sized by the
 * receives a connection may have, is thousands of entries with the defaults; a connection usually
 * holds a few). Engine thread only.
 */
final class NoticeQueue {
    /** Entries a queue starts with. */
    static final int INITIAL_ENTRIES = 16;

    private final int limit;
    private byte[] type;
    private long[] seq;
    private long[] length;
    private int[] extra;
    private int head;
    private int size;

    /** @param limit most entries at once */
    NoticeQueue(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("notice queue of " + limit);
        }
        this.limit = limit;
        grow(Math.min(limit, INITIAL_ENTRIES));
    }

    /**
     * Moves the entries into rings of {@code n}: entry {@code k} sits at {@code (head + k) mod
     * length}, the layout of a sequence ring, so {@code head} stays.
     */
    private void grow(int n) {
        type = SequenceRing.regrow(type, new byte[n], head, head + size);
        seq = SequenceRing.regrow(seq, new long[n], head, head + size);
        length = SequenceRing.regrow(length, new long[n], head, head + size);
        extra = SequenceRing.regrow(extra, new int[n], head, head + size);
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return false if {@code limit} entries wait already */
    boolean add(byte t, long s, long len, int x) {
        if (size == type.length) {
            if (size == limit) {
                return false;
            }
            grow((int) Math.min(limit, 2L * type.length));
        }
        int i = (head + size) % type.length;
        type[i] = t;
        seq[i] = s;
        length[i] = len;
        extra[i] = x;
        size++;
        return true;
    }

    byte headType() {
        return type[head];
    }

    long headSeq() {
        return seq[head];
    }

    long headLength() {
        return length[head];
    }

    int headExtra() {
        return extra[head];
    }

    void removeHead() {
        head = (head + 1) % type.length;
        size--;
    }

    /** @return entries the ring has room for now (tests) */
    int capacity() {
        return type.length;
    }
}
