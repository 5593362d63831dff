package dev.virtuoso.decomposer.internal;

/**
 * FIFO of byte ranges of messages that still have to be placed: the decomposition cursor of each
 * message being split ({@code length == -1} means "up to the end of the message") and ranges of
 * failed chunks to re-post. A preallocated ring; removal of a message's entries compacts it.
 */
final class RangeQueue {
    private final int[] message;
    private final long[] offset;
    private final long[] length;
    private int head;
    private int size;

    RangeQueue(int capacity) {
        message = new int[capacity];
        offset = new long[capacity];
        length = new long[capacity];
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    boolean add(int m, long off, long len) {
        if (size == message.length) {
            return false;
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
