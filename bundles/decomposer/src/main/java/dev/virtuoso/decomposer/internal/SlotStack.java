package dev.virtuoso.decomposer.internal;

/**
 * Preallocated slots 0..capacity-1 handed out from a free stack: allocation-free bookkeeping for
 * the parallel-array tables of the decomposer. Engine-thread only.
 */
final class SlotStack {
    private final boolean[] used;
    private final int[] free;
    private int freeCount;

    SlotStack(int capacity) {
        used = new boolean[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    int capacity() {
        return used.length;
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
            return -1;
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
