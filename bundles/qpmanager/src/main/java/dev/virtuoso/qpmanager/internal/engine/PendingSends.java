package dev.virtuoso.qpmanager.internal.engine;

/** MP_SENDs waiting for the peer's next receive buffer (or a slot credit), in posting order. */
final class PendingSends {
    private final long[] wrId;
    private final Region[] region;
    private final long[] offset;
    private final long[] length;
    private int head;
    private int size;

    PendingSends(int capacity) {
        wrId = new long[capacity];
        region = new Region[capacity];
        offset = new long[capacity];
        length = new long[capacity];
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean add(long id, Region r, long off, long len) {
        if (size == wrId.length) {
            return false;
        }
        int i = (head + size) % wrId.length;
        wrId[i] = id;
        region[i] = r;
        offset[i] = off;
        length[i] = len;
        size++;
        return true;
    }

    long headWrId() {
        return wrId[head];
    }

    Region headRegion() {
        return region[head];
    }

    long headOffset() {
        return offset[head];
    }

    long headLength() {
        return length[head];
    }

    void removeHead() {
        region[head] = null;
        head = (head + 1) % wrId.length;
        size--;
    }
}
