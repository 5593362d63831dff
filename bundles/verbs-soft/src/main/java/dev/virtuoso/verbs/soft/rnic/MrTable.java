package dev.virtuoso.verbs.soft.rnic;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Map;
import java.util.TreeMap;

/**
 * The device's registered regions, by lkey and by rkey. Keys come from a {@link SecureRandom} and
 * are unique among live regions (so an rkey is never reused while its region is registered);
 * virtual addresses are random, 4 KiB-aligned and never overlap. Lookups are lock-free reads
 * ({@link IntMap}); registration is synchronized (control plane): O(1) in the key maps, O(log
 * regions) in the overlap check (regions by address).
 */
final class MrTable {
    /** Synthetic addresses live in [2^32, 2^46), like user-space addresses on x86-64. */
    private static final long VA_LOW = 1L << 32;
    private static final long VA_SPAN = (1L << 46) - VA_LOW;
    private static final long PAGE = 4096;

    private final SecureRandom random = new SecureRandom();
    private final IntMap<SoftMr> byLkey = new IntMap<>();
    private final IntMap<SoftMr> byRkey = new IntMap<>();
    /** Live regions by address (under the lock): they never overlap, so the nearest below decides. */
    private final TreeMap<Long, SoftMr> byAddress = new TreeMap<>();

    synchronized SoftMr register(SoftPd pd, ByteBuffer memory, int access) {
        IntMap<SoftMr> l = byLkey;
        IntMap<SoftMr> r = byRkey;
        int lkey;
        do {
            lkey = random.nextInt();
        } while (lkey == 0 || l.containsKey(lkey));
        int rkey;
        do {
            rkey = random.nextInt();
        } while (rkey == 0 || r.containsKey(rkey));
        long va;
        do {
            va = (VA_LOW + (random.nextLong() >>> 1) % VA_SPAN) & ~(PAGE - 1);
        } while (va < VA_LOW || va + memory.capacity() > VA_LOW + VA_SPAN
                || overlaps(va, memory.capacity()));
        SoftMr mr = new SoftMr(pd, memory, va, lkey, rkey, access);
        l.put(lkey, mr);
        r.put(rkey, mr);
        byAddress.put(va, mr);
        return mr;
    }

    synchronized boolean deregister(SoftMr mr) {
        if (byLkey.get(mr.lkey) != mr) {
            return false;
        }
        mr.valid = false;
        byLkey.remove(mr.lkey);
        byRkey.remove(mr.rkey);
        byAddress.remove(mr.address);
        return true;
    }

    SoftMr byLkey(int lkey) {
        return byLkey.get(lkey);
    }

    SoftMr byRkey(int rkey) {
        return byRkey.get(rkey);
    }

    /**
     * Finds the live region containing {@code [va, va + len)} (used for inline data, which names
     * memory by address only).
     *
     * @return the region, or null
     */
    SoftMr byAddress(long va, int len) {
        IntMap<SoftMr> t = byLkey;
        for (int i = 0, n = t.slots(); i < n; i++) {
            SoftMr mr = t.valueAt(i);
            if (mr != null && mr.offsetOf(va, len) >= 0) {
                return mr;
            }
        }
        return null;
    }

    /**
     * Under the lock. Regions are kept a guard page apart so off-by-one addresses never hit a
     * neighbour; since they never overlap, the region starting last before the new one's end (plus
     * the guard) is the only one that can reach into it.
     *
     * @return whether {@code [va, va + len)} comes within a page of a live region
     */
    boolean overlaps(long va, int len) {
        Map.Entry<Long, SoftMr> below = byAddress.floorEntry(va + len + PAGE - 1);
        return below != null && below.getValue().address + below.getValue().length + PAGE > va;
    }
}
