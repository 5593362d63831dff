package dev.virtuoso.itests.robustness;

import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;

/** Sums of a device's drop counters. */
final class Drops {
    private Drops() {
    }

    /** @return the sum of every {@code DROP_*} counter */
    static long sum(VerbsCounters c) {
        long s = 0;
        for (VerbsCounter k : VerbsCounter.values()) {
            if (k.name().startsWith("DROP_")) {
                s += c.get(k);
            }
        }
        return s;
    }
}
