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
    private final SlotStack slots;

    ChunkTable(int capacity) {
        message = new int[capacity];
        path = new int[capacity];
        offset = new long[capacity];
        length = new long[capacity];
        postedAt = new long[capacity];
        generation = new int[capacity];
        slots = new SlotStack(capacity);
    }

    int capacity() {
        return slots.capacity();
    }

    int inUse() {
        return slots.inUse();
    }

    /** @return a free slot, or -1 */
    int allocate() {
        return slots.allocate();
    }

    void release(int slot) {
        generation[slot] = (generation[slot] + 1) & GEN_MASK;
        slots.release(slot);
    }

    boolean inUse(int slot) {
        return slots.inUse(slot);
    }

    long wrId(int slot) {
        return Decomposition.WR_ID_TAG | ((long) generation[slot] << 32) | slot;
    }

    /** @return the slot a wr_id names if it is still live, else -1 */
    int slotOf(long wrId) {
        long slot = wrId & SLOT_MASK;
        if (slot >= slots.capacity()) {
            return -1;
        }
        int s = (int) slot;
        int gen = (int) ((wrId >>> 32) & GEN_MASK);
        return slots.inUse(s) && generation[s] == gen ? s : -1;
    }
}
