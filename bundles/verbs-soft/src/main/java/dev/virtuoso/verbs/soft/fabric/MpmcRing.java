package dev.virtuoso.verbs.soft.fabric;

import dev.virtuoso.util.SlotRing;

/**
 * Bounded lock-free multi-producer multi-consumer queue of references over a {@link SlotRing}.
 * Allocates nothing after construction, which is why the fabric uses it instead of
 * {@code ConcurrentLinkedQueue} (one node per offer).
 *
 * @param <E> element type
 */
final class MpmcRing<E> {
    /** A slot holding one element while it is queued. */
    private static final class Cell<E> {
        E element;
    }

    private final SlotRing<Cell<E>> ring;

    /** @param capacity rounded up to a power of two, at least 2 */
    MpmcRing(int capacity) {
        if (capacity < 2 || capacity > (1 << 30)) {
            throw new IllegalArgumentException("capacity out of range: " + capacity);
        }
        int size = Integer.highestOneBit(capacity - 1) << 1;
        ring = new SlotRing<>(size, i -> new Cell<>());
    }

    int capacity() {
        return ring.capacity();
    }

    /** @return false if full */
    boolean offer(E e) {
        long t = ring.claim();
        if (t < 0) {
            return false;
        }
        ring.slot(t).element = e;
        ring.publish(t);
        return true;
    }

    /** @return the oldest element, or null if empty */
    E poll() {
        long t = ring.acquire();
        if (t < 0) {
            return null;
        }
        Cell<E> c = ring.slot(t);
        E e = c.element;
        c.element = null;
        ring.release(t);
        return e;
    }

    /** @return true if nothing is queued, counting offers still in progress; approximate */
    boolean isEmpty() {
        return ring.size() == 0;
    }

    /** @return approximate number of queued elements */
    int size() {
        return ring.size();
    }
}
