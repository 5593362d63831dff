package dev.virtuoso.qpmanager.internal.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;

/**
 * Completions from the engine (one producer) to application threads (many consumers): a bounded
 * ring of preallocated {@link MpCompletion}s guarded by sequence numbers. Polling copies into the
 * caller's object; nothing is allocated.
 */
final class CompletionRing {
    private final MpCompletion[] slots;
    private final AtomicLongArray sequence;
    private final int mask;
    private final AtomicLong head = new AtomicLong();
    private long tail;

    /** @param minCapacity slots wanted; rounded up to a power of two */
    CompletionRing(int minCapacity) {
        int capacity = Integer.highestOneBit(Math.max(2, minCapacity - 1)) << 1;
        slots = new MpCompletion[capacity];
        sequence = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            slots[i] = new MpCompletion();
            sequence.set(i, i);
        }
        mask = capacity - 1;
    }

    /** Producer: adds a completion; false if full (the engine sizes the ring so it never is). */
    boolean offer(long wrId, MpOpcode op, MpStatus status, long bytes, int paths, String detail) {
        int i = (int) (tail & mask);
        if (sequence.get(i) != tail) {
            return false;
        }
        slots[i].set(wrId, op, status, bytes, paths, detail);
        sequence.set(i, tail + 1);
        tail++;
        return true;
    }

    /** Consumer: takes the oldest completion into {@code out}; false if none. */
    boolean poll(MpCompletion out) {
        while (true) {
            long h = head.get();
            int i = (int) (h & mask);
            long s = sequence.get(i);
            if (s == h + 1) {
                if (head.compareAndSet(h, h + 1)) {
                    out.copyFrom(slots[i]);
                    sequence.set(i, h + slots.length);
                    return true;
                }
            } else if (s < h + 1) {
                return false;
            }
        }
    }

    /** @return true if a completion is waiting (a hint) */
    boolean nonEmpty() {
        long h = head.get();
        return sequence.get((int) (h & mask)) == h + 1;
    }
}
