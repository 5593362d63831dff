package dev.virtuoso.verbs.soft.rnic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;

/**
 * Counters written by one thread (the device's engine) and read by any: plain read-modify-write
 * with a release store, acquire loads for readers. A QP's counters also add to their device's.
 */
final class SoftCounters implements VerbsCounters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VerbsCounter[] ALL = VerbsCounter.values();

    private final long[] values = new long[ALL.length];
    private final SoftCounters parent;

    /** @param parent counters that also receive every increment, or null */
    SoftCounters(SoftCounters parent) {
        this.parent = parent;
    }

    /** Engine thread only. */
    void inc(VerbsCounter c) {
        add(c, 1);
    }

    /** Engine thread only. */
    void add(VerbsCounter c, long n) {
        int i = c.ordinal();
        SLOT.setRelease(values, i, values[i] + n);
        if (parent != null) {
            parent.add(c, n);
        }
    }

    @Override
    public long get(VerbsCounter counter) {
        return (long) SLOT.getAcquire(values, counter.ordinal());
    }

    @Override
    public Map<VerbsCounter, Long> snapshot() {
        EnumMap<VerbsCounter, Long> m = new EnumMap<>(VerbsCounter.class);
        for (VerbsCounter c : ALL) {
            m.put(c, get(c));
        }
        return Collections.unmodifiableMap(m);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (VerbsCounter c : ALL) {
            long v = get(c);
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(c).append('=').append(v);
            }
        }
        return sb.append('}').toString();
    }
}
