package dev.virtuoso.decomposer.internal;

import dev.virtuoso.decomposer.Decomposition;

/**
 * Chunks in flight, in preallocated parallel arrays with a free-slot stack. A chunk's wr_id packs
 * the decomposition tag, a generation and the slot, so a completion arriving for a slot that was
 * freed and reused (an abandoned chunk) is recognised as stale.
 */
final class ChunkTable {
    private static final long SLOT_MASK = 0xFFFF_FFFFL;
    private static final int GEN_MASK = 0x0FFF_FFFF;

    final int[] message;
    final int[] path;
    final long[] offset;
    final long[] length;
    final long[] postedAt;
    private final int[] generation;
    private final boolean[] used;
    private final int[] free;
    private int freeCount;

    ChunkTable(int capacity) {
        message = new int[capacity];
        path = new int[capacity];
        offset = new long[capacity];
        length = new long[capacity];
        postedAt = new long[capacity];
        generation = new int[capacity];
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

    /** @return a free slot, or -1 */
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
        generation[slot] = (generation[slot] + 1) & GEN_MASK;
        free[freeCount++] = slot;
    }

    boolean inUse(int slot) {
        return used[slot];
    }

    long wrId(int slot) {
        return Decomposition.WR_ID_TAG | ((long) generation[slot] << 32) | slot;
    }

    /** @return the slot a wr_id names if it is still live, else -1 */
    int slotOf(long wrId) {
        long slot = wrId & SLOT_MASK;
        if (slot >= used.length) {
            return -1;
        }
        int s = (int) slot;
        int gen = (int) ((wrId >>> 32) & GEN_MASK);
        return used[s] && generation[s] == gen ? s : -1;
    }
}
