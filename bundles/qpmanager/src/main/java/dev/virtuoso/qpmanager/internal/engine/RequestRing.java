package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.util.SlotRing;

/**
 * The hand-off of MP work requests from application threads to the engine: a {@link SlotRing} of
 * preallocated request slots, many producers and one consumer (the engine, which peeks and
 * releases in order). Posting allocates nothing and takes no lock.
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

    private final SlotRing<Request> ring;

    /** @param minCapacity slots wanted; rounded up to a power of two, at least 4 */
    RequestRing(int minCapacity) {
        int capacity = Integer.highestOneBit(Math.max(2, minCapacity - 1)) << 1;
        ring = new SlotRing<>(capacity, i -> new Request());
    }

    /** @return a ticket for a free slot, or -1 if the ring is full */
    long claim() {
        return ring.claim();
    }

    Request slot(long ticket) {
        return ring.slot(ticket);
    }

    void publish(long ticket) {
        ring.publish(ticket);
    }

    /** Consumer: the oldest published request, or {@code null}. */
    Request peek() {
        long t = ring.peek();
        return t < 0 ? null : ring.slot(t);
    }

    /** Consumer: frees the slot returned by {@link #peek()}. */
    void release() {
        long t = ring.peek();
        ring.slot(t).region = null;
        ring.release(t);
    }
}
