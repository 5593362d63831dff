package dev.virtuoso.verbs.disni;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;

/**
 * Per-QP counters: the transport runs in the NIC and DiSNI exposes no per-QP statistics, so every
 * counter reports -1 ("not counted"), as the SPI prescribes.
 */
final class UncountedCounters implements VerbsCounters {
    static final UncountedCounters INSTANCE = new UncountedCounters();

    private final Map<VerbsCounter, Long> snapshot;

    private UncountedCounters() {
        Map<VerbsCounter, Long> m = new EnumMap<>(VerbsCounter.class);
        for (VerbsCounter c : VerbsCounter.values()) {
            m.put(c, -1L);
        }
        snapshot = Collections.unmodifiableMap(m);
    }

    @Override
    public long get(VerbsCounter counter) {
        return -1;
    }

    @Override
    public Map<VerbsCounter, Long> snapshot() {
        return snapshot;
    }
}
