package dev.virtuoso.decomposer.internal;

import java.util.Arrays;

import dev.virtuoso.util.WrId;

/**
 * Chunks in flight, in parallel arrays with a free-slot stack; the arrays start at
 * {@link #INITIAL_SLOTS} and double up to the table's limit when every slot is in use (a table
 * sized for every path's full send queue usually holds a few dozen chunks). A chunk's wr_id packs
 * the decomposition's tag, a generation and the slot ({@link WrId}), so a completion arriving for a
 * slot that was freed and reused (an abandoned chunk) is recognised as stale.
 */
final class ChunkTable {
    private final long tag;

    /** Chunk slots a table starts with. */
    static final int INITIAL_SLOTS = 64;

    int[] message;
    int[] path;
    long[] offset;
    long[] length;
    long[] postedAt;
    private int[] generation;
    private final SlotStack slots;

    /**
     * @param limit most chunks in flight at once
     * @param tag the wr_id tag the engine assigned
     */
    ChunkTable(int limit, long tag) {
        this.tag = WrId.checkTag(tag);
        slots = new SlotStack(Math.min(limit, INITIAL_SLOTS), limit);
        arrays(slots.capacity());
    }

    private void arrays(int n) {
        message = message == null ? new int[n] : Arrays.copyOf(message, n);
        path = path == null ? new int[n] : Arrays.copyOf(path, n);
        offset = offset == null ? new long[n] : Arrays.copyOf(offset, n);
        length = length == null ? new long[n] : Arrays.copyOf(length, n);
        postedAt = postedAt == null ? new long[n] : Arrays.copyOf(postedAt, n);
        generation = generation == null ? new int[n] : Arrays.copyOf(generation, n);
    }

    int capacity() {
        return slots.capacity();
    }

    int inUse() {
        return slots.inUse();
    }

    /** @return most chunks in flight at once */
    int limit() {
        return slots.limit();
    }

    /** @return a free slot, or -1 if {@link #limit()} are in flight */
    int allocate() {
        int s = slots.allocate();
        if (s >= message.length) {
            arrays(slots.capacity());
        }
        return s;
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
