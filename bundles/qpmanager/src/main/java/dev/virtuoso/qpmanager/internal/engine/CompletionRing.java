package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.util.SlotRing;

/**
 * Completions from the engine (one producer) to application threads (many consumers): a
 * {@link SlotRing} of preallocated {@link MpCompletion}s. Polling copies into the caller's object;
 * nothing is allocated.
 */
final class CompletionRing {
    private final SlotRing<MpCompletion> ring;

    /** @param minCapacity slots wanted; rounded up to a power of two, at least 4 */
    CompletionRing(int minCapacity) {
        int capacity = Integer.highestOneBit(Math.max(2, minCapacity - 1)) << 1;
        ring = new SlotRing<>(capacity, i -> new MpCompletion());
    }

    /** Producer: adds a completion; false if full (the engine sizes the ring so it never is). */
    boolean offer(long wrId, MpOpcode op, MpStatus status, long bytes, int paths, String detail) {
        long t = ring.claim();
        if (t < 0) {
            return false;
        }
        ring.slot(t).set(wrId, op, status, bytes, paths, detail);
        ring.publish(t);
        return true;
    }

    /** Consumer: takes the oldest completion into {@code out}; false if none. */
    boolean poll(MpCompletion out) {
        long t = ring.acquire();
        if (t < 0) {
            return false;
        }
        out.copyFrom(ring.slot(t));
        ring.release(t);
        return true;
    }

    /** @return true if a completion is waiting (a hint) */
    boolean nonEmpty() {
        return !ring.isEmpty();
    }
}
