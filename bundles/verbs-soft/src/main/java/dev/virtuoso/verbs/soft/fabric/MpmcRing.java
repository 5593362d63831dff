package dev.virtuoso.verbs.soft.fabric;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounded lock-free multi-producer multi-consumer queue (per-slot sequence numbers, after Dmitry
 * Vyukov's design). Allocates nothing after construction, which is why the fabric uses it instead of
 * {@code ConcurrentLinkedQueue} (one node per offer).
 *
 * @param <E> element type
 */
final class MpmcRing<E> {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private final long[] sequences;
    private final Object[] slots;
    private final int mask;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();

    /** @param capacity rounded up to a power of two, at least 2 */
    MpmcRing(int capacity) {
        if (capacity < 2 || capacity > (1 << 30)) {
            throw new IllegalArgumentException("capacity out of range: " + capacity);
        }
        int size = Integer.highestOneBit(capacity - 1) << 1;
        sequences = new long[size];
        slots = new Object[size];
        mask = size - 1;
        for (int i = 0; i < size; i++) {
            sequences[i] = i;
        }
    }

    int capacity() {
        return mask + 1;
    }

    /** @return false if full */
    boolean offer(E e) {
        long pos = tail.get();
        while (true) {
            int index = (int) pos & mask;
            long seq = (long) SEQ.getAcquire(sequences, index);
            long dif = seq - pos;
            if (dif == 0) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    SLOT.setRelease(slots, index, e);
                    SEQ.setRelease(sequences, index, pos + 1);
                    return true;
                }
                pos = tail.get();
            } else if (dif < 0) {
                return false;
            } else {
                pos = tail.get();
            }
        }
    }

    /** @return the oldest element, or null if empty */
    @SuppressWarnings("unchecked")
    E poll() {
        long pos = head.get();
        while (true) {
            int index = (int) pos & mask;
            long seq = (long) SEQ.getAcquire(sequences, index);
            long dif = seq - (pos + 1);
            if (dif == 0) {
                if (head.compareAndSet(pos, pos + 1)) {
                    E e = (E) SLOT.getAcquire(slots, index);
                    SLOT.setRelease(slots, index, null);
                    SEQ.setRelease(sequences, index, pos + mask + 1);
                    return e;
                }
                pos = head.get();
            } else if (dif < 0) {
                return null;
            } else {
                pos = head.get();
            }
        }
    }

    /** @return true if nothing is queued; approximate while producers are mid-offer */
    boolean isEmpty() {
        return head.get() >= tail.get();
    }

    /** @return approximate number of queued elements */
    int size() {
        long n = tail.get() - head.get();
        return n <= 0 ? 0 : (int) Math.min(n, capacity());
    }
}
