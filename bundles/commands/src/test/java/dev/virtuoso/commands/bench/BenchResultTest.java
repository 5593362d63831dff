package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BenchResultTest {

    @Test
    void averageIsBytesOverTimeAndPeakIsTheBestWindow() {
        BenchOptions o = BenchOptions.from(BenchOptions.SPEC.parse("-t", "2", "-n", "40"));
        long[] t = new long[40];
        // 1 MiB messages: first 20 at one per 10 ms, then 20 at one per 5 ms
        long now = 0;
        for (int i = 0; i < 40; i++) {
            now += i < 20 ? 10_000_000 : 5_000_000;
            t[i] = now;
        }
        BenchResult r = BenchResult.of(o, 1 << 20, 0, t);
        assertEquals(40 / 0.3, r.average(), 1e-6);
        assertEquals(200.0, r.peak(), 1e-6);
        assertTrue(r.peak() >= r.average());
        assertEquals(40 / 0.3 / 1e6, r.msgRateMpps(), 1e-9);
    }
}
