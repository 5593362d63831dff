package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.util.WrId;

/**
 * Probe WRITEs in flight: path, length and post time per slot, found again from the completion's
 * wr_id. A wr_id carries {@link WrIdTags#PROBE}, a generation and the slot ({@link WrId}), so a
 * completion of a slot released meanwhile (its path abandoned) is recognised as stale. Engine
 * thread only; no allocation after construction.
 */
final class ProbeTable {
    private static final int MAX_CAPACITY = 1 << 16;

    final int[] path;
    final long[] bytes;
    final long[] postedAt;
    private final int[] generation;
    private final boolean[] used;
    private final int[] free;
    private int freeCount;

    /** @param capacity most probe WRITEs in flight at once, at most 65536 */
    ProbeTable(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("probe table capacity out of range: " + capacity);
        }
        path = new int[capacity];
        bytes = new long[capacity];
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
        return path.length;
    }

    int inUse() {
        return path.length - freeCount;
    }

    /** @return a slot holding the probe, or -1 if the table is full */
    int allocate(int p, long len, long now) {
        if (freeCount == 0) {
            return -1;
        }
        int s = free[--freeCount];
        used[s] = true;
        generation[s]++;
        path[s] = p;
        bytes[s] = len;
        postedAt[s] = now;
        return s;
    }

    boolean inUse(int slot) {
        return used[slot];
    }

    void release(int slot) {
        if (used[slot]) {
            used[slot] = false;
            free[freeCount++] = slot;
        }
    }

    long wrId(int slot) {
        return WrId.pack(WrIdTags.PROBE, generation[slot], slot);
    }

    /** @return the slot a wr_id names if it is still in use by that probe, else -1 */
    int slotOf(long wrId) {
        long slot = WrId.slot(wrId);
        if (slot >= path.length || !used[(int) slot]) {
            return -1;
        }
        int s = (int) slot;
        return WrId.generation(wrId) == (generation[s] & WrId.GENERATION_MASK) ? s : -1;
    }
}
