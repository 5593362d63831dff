package dev.virtuoso.decomposer.internal;

/**
 * FIFO of byte ranges of messages that still have to be placed: the decomposition cursor of each
 * message being split ({@code length == -1} means "up to the end of the message") and ranges of
 * failed chunks to re-post. A ring that starts at {@link #INITIAL_ENTRIES} and doubles up to its
 * limit when full; removal of a message's entries compacts it.
 */
final class RangeQueue {
    /** Entries a queue starts with. */
    static final int INITIAL_ENTRIES = 64;

    private final int limit;
    private int[] message;
    private long[] offset;
    private long[] length;
    private int head;
    private int size;

    /** @param limit most entries at once */
    RangeQueue(int limit) {
        this.limit = limit;
        int n = Math.min(limit, INITIAL_ENTRIES);
        message = new int[n];
        offset = new long[n];
        length = new long[n];
    }

    /** Doubles the ring (up to the limit), the entries in order from index 0. */
    private void grow() {
        int n = (int) Math.min(limit, 2L * message.length);
        int[] m = new int[n];
        long[] o = new long[n];
        long[] l = new long[n];
        for (int k = 0; k < size; k++) {
            int from = (head + k) % message.length;
            m[k] = message[from];
            o[k] = offset[from];
            l[k] = length[from];
        }
        message = m;
        offset = o;
        length = l;
        head = 0;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    boolean add(int m, long off, long len) {
        if (size == message.length) {
            if (size == limit) {
                return false;
            }
            grow();
        }
        int i = (head + size) % message.length;
        message[i] = m;
        offset[i] = off;
        length[i] = len;
        size++;
        return true;
    }

    int headMessage() {
        return message[head];
    }

    long headOffset() {
        return offset[head];
    }

    long headLength() {
        return length[head];
    }

    /** Consumes {@code n} bytes from the front of the head range. */
    void advanceHead(long n) {
        offset[head] += n;
        length[head] -= n;
    }

    void removeHead() {
        head = (head + 1) % message.length;
        size--;
    }

    /**
     * Removes every entry of message {@code m}.
     *
     * @return entries removed
     */
    int removeMessage(int m) {
        int kept = 0;
        int removed = 0;
        int cap = message.length;
        for (int k = 0; k < size; k++) {
            int from = (head + k) % cap;
            if (message[from] == m) {
                removed++;
                continue;
            }
            int to = (head + kept) % cap;
            message[to] = message[from];
            offset[to] = offset[from];
            length[to] = length[from];
            kept++;
        }
        size = kept;
        return removed;
    }
}
