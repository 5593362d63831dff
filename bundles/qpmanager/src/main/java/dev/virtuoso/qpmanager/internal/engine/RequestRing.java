package dev.virtuoso.qpmanager.internal.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The hand-off of MP work requests from application threads to the engine: a bounded ring of
 * preallocated request slots, many producers and one consumer, each slot guarded by a sequence
 * number (the Vyukov bounded queue). Posting allocates nothing and takes no lock.
 */
final class RequestRing {
    static final int WRITE = 0;
    static final int READ = 1;
    static final int SEND = 2;
    static final int RECV = 3;

    /** One request slot, written by its producer between claim and publish. */
    static final class Request {
        int op;
        long wrId;
        Region region;
        long offset;
        long length;
        long remoteAddr;
        int rkey;
    }

    private final Request[] slots;
    private final AtomicLongArray sequence;
    private final int mask;
    private final AtomicLong tail = new AtomicLong();
    private long head;

    /** @param minCapacity slots wanted; rounded up to a power of two */
    RequestRing(int minCapacity) {
        int capacity = Integer.highestOneBit(Math.max(2, minCapacity - 1)) << 1;
        slots = new Request[capacity];
        sequence = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            slots[i] = new Request();
            sequence.set(i, i);
        }
        mask = capacity - 1;
    }

    /** @return a ticket for a free slot, or -1 if the ring is full */
    long claim() {
        while (true) {
            long t = tail.get();
            long s = sequence.get((int) (t & mask));
            if (s == t) {
                if (tail.compareAndSet(t, t + 1)) {
                    return t;
                }
            } else if (s < t) {
                return -1;
            }
        }
    }

    Request slot(long ticket) {
        return slots[(int) (ticket & mask)];
    }

    void publish(long ticket) {
        sequence.set((int) (ticket & mask), ticket + 1);
    }

    /** Consumer: the oldest published request, or {@code null}. */
    Request peek() {
        int i = (int) (head & mask);
        return sequence.get(i) == head + 1 ? slots[i] : null;
    }

    /** Consumer: frees the slot returned by {@link #peek()}. */
    void release() {
        int i = (int) (head & mask);
        slots[i].region = null;
        sequence.lazySet(i, head + slots.length);
        head++;
    }
}
