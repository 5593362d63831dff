package dev.virtuoso.reassembler.internal;

/** Placement reports (SEND_DONE / SEND_FAILED) waiting for room in the control channel. */
final class NoticeQueue {
    private final byte[] type;
    private final long[] seq;
    private final long[] length;
    private final int[] extra;
    private int head;
    private int size;

    NoticeQueue(int capacity) {
        type = new byte[capacity];
        seq = new long[capacity];
        length = new long[capacity];
        extra = new int[capacity];
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean add(byte t, long s, long len, int x) {
        if (size == type.length) {
            return false;
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
}
