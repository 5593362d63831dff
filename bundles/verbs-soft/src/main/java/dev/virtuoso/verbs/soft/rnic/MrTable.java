package dev.virtuoso.verbs.soft.rnic;

import java.nio.ByteBuffer;
import java.security.SecureRandom;

/**
 * The device's registered regions, by lkey and by rkey. Keys come from a {@link SecureRandom} and
 * are unique among live regions (so an rkey is never reused while its region is registered);
 * virtual addresses are random, 4 KiB-aligned and never overlap. Lookups are lock-free reads of
 * immutable tables; registration is synchronized (control plane).
 */
final class MrTable {
    /** Synthetic addresses live in [2^32, 2^46), like user-space addresses on x86-64. */
    private static final long VA_LOW = 1L << 32;
    private static final long VA_SPAN = (1L << 46) - VA_LOW;
    private static final long PAGE = 4096;

    private final SecureRandom random = new SecureRandom();
    private volatile IntTable<SoftMr> byLkey = IntTable.empty();
    private volatile IntTable<SoftMr> byRkey = IntTable.empty();

    synchronized SoftMr register(SoftPd pd, ByteBuffer memory, int access) {
        IntTable<SoftMr> l = byLkey;
        IntTable<SoftMr> r = byRkey;
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
                || overlaps(l, va, memory.capacity()));
        SoftMr mr = new SoftMr(pd, memory, va, lkey, rkey, access);
        byLkey = l.with(lkey, mr);
        byRkey = r.with(rkey, mr);
        return mr;
    }

    synchronized boolean deregister(SoftMr mr) {
        if (byLkey.get(mr.lkey) != mr) {
            return false;
        }
        mr.valid = false;
        byLkey = byLkey.without(mr.lkey);
        byRkey = byRkey.without(mr.rkey);
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
        IntTable<SoftMr> t = byLkey;
        for (int i = 0, n = t.slots(); i < n; i++) {
            SoftMr mr = t.valueAt(i);
            if (mr != null && mr.offsetOf(va, len) >= 0) {
                return mr;
            }
        }
        return null;
    }

    private static boolean overlaps(IntTable<SoftMr> t, long va, int len) {
        for (SoftMr mr : t.values()) {
            // keep a guard page between regions so off-by-one addresses never hit a neighbour
            if (va < mr.address + mr.length + PAGE && mr.address < va + len + PAGE) {
                return true;
            }
        }
        return false;
    }
}
