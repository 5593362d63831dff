package dev.virtuoso.decomposer.internal;

import java.util.Arrays;

/**
 * Slots 0..capacity-1 handed out from a free stack, lowest first: allocation-free bookkeeping for
 * the parallel-array tables of the decomposer. A stack may start below its limit and double (up to
 * the limit) when every slot is in use, so a table sized for the worst case costs memory only for
 * the most slots it had in use at once. Engine-thread only.
 */
final class SlotStack {
    private final int limit;
    private boolean[] used;
    private int[] free;
    private int freeCount;

    SlotStack(int capacity) {
        this(capacity, capacity);
    }

    /**
     * @param initial slots allocated now (at least 1)
     * @param limit most slots ever
     */
    SlotStack(int initial, int limit) {
        if (initial < 1 || initial > limit) {
            throw new IllegalArgumentException("slots " + initial + " of at most " + limit);
        }
        this.limit = limit;
        used = new boolean[initial];
        free = new int[initial];
        pushFree(0, initial);
    }

    /** Pushes {@code from..to-1} so that the lowest comes off first. */
    private void pushFree(int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            free[freeCount++] = i;
        }
    }

    /** @return slots allocated now (every slot index is below it) */
    int capacity() {
        return used.length;
    }

    /** @return most slots ever */
    int limit() {
        return limit;
    }

    int inUse() {
        return used.length - freeCount;
    }

    boolean inUse(int slot) {
        return used[slot];
    }

    /** @return a free slot, or -1 if all are in use */
    int allocate() {
        if (freeCount == 0) {
            int n = used.length;
            if (n == limit) {
                return -1;
            }
            int grown = (int) Math.min(limit, 2L * n);
            used = Arrays.copyOf(used, grown);
            free = new int[grown];
            pushFree(n, grown);
        }
        int slot = free[--freeCount];
        used[slot] = true;
        return slot;
    }

    void release(int slot) {
        used[slot] = false;
        free[freeCount++] = slot;
    }
}
