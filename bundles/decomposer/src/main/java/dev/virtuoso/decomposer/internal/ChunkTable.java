package dev.virtuoso.decomposer.internal;

import dev.virtuoso.util.WrId;

/**
 * Chunks in flight, in preallocated parallel arrays with a free-slot stack. A chunk's wr_id packs
 * the decomposition's tag, a generation and the slot ({@link WrId}), so a completion arriving for a
 * slot that was freed and reused (an abandoned chunk) is recognised as stale.
 */
final class ChunkTable {
    private final long tag;

    final int[] message;
    final int[] path;
    final long[] offset;
    final long[] length;
    final long[] postedAt;
    private final int[] generation;
    private final SlotStack slots;

    /** @param tag the wr_id tag the engine assigned */
    ChunkTable(int capacity, long tag) {
        this.tag = WrId.checkTag(tag);
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
        generation[slot] = (generation[slot] + 1) & WrId.GENERATION_MASK;
        slots.release(slot);
    }

    boolean inUse(int slot) {
        return slots.inUse(slot);
    }

    long wrId(int slot) {
        return WrId.pack(tag, generation[slot], slot);
    }

    /** @return the slot a wr_id names if it is still live, else -1 */
    int slotOf(long wrId) {
        long slot = WrId.slot(wrId);
        if (slot >= slots.capacity()) {
            return -1;
        }
        int s = (int) slot;
        return slots.inUse(s) && generation[s] == WrId.generation(wrId) ? s : -1;
    }
}
