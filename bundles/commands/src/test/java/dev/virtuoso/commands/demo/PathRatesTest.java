package dev.virtuoso.commands.demo;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * A 150 Mbit/s link carrying 1 MiB chunks back to back (56 ms each), whose completions arrive late
 * and in bunches (acknowledgements held up to 100 ms, longer than a chunk takes, as behind reverse
 * traffic), sampled every 200 ms with jitter as the demo does: no rate shown exceeds the link, and
 * after 4 s the rates are within 30% of it (the window is lengthened by the path's latency). The
 * naive rate (bytes completed in the last interval over the interval) is checked to exceed the link
 * in the same run, so the test can tell the difference.
 */
class PathRatesTest {
    private static final double LINK_BPS = 150e6;
    private static final long CHUNK = 1 << 20;

    @Test
    void ratesNeverExceedTheLinkAndConverge() {
        Random random = new Random(7);
        double chunkNanos = CHUNK * 8e9 / LINK_BPS;
        long[] completion = new long[2000];
        for (int k = 0; k < completion.length; k++) {
            long done = (long) ((k + 1) * chunkNanos);
            completion[k] = done + 50_000 + random.nextInt(100_000_000);
        }
        for (int k = 1; k < completion.length; k++) {
            completion[k] = Math.max(completion[k], completion[k - 1]); // completions are in order
        }
        PathRates rates = new PathRates();
        rates.begin(0, new long[] {0}, new long[] {0});
        long now = 0;
        long lastBytes = 0;
        long lastNow = 0;
        double naiveMax = 0;
        int k = 0;
        long smoothed = 0;
        while (now < 20_000_000_000L) {
            now += 200_000_000L + random.nextInt(30_000_000);
            while (k < completion.length && completion[k] <= now) {
                k++;
            }
            long bytes = k * CHUNK;
            // the path's smoothed latency: a chunk's time from the start of its transmission to its completion
            long latency = k == 0 ? 0 : completion[k - 1] - (long) ((k - 1) * chunkNanos);
            smoothed = smoothed == 0 ? latency : (7 * smoothed + latency) / 8;
            double[] r = rates.sample(now, new long[] {bytes}, new long[] {k}, new long[] {smoothed});
            assertTrue(r[0] <= LINK_BPS, "at " + now / 1e9 + " s: " + r[0] / 1e6 + " Mbit/s on a 150 Mbit/s link");
            if (now > 4_000_000_000L) {
                assertTrue(r[0] >= 0.7 * LINK_BPS, "at " + now / 1e9 + " s: " + r[0] / 1e6 + " Mbit/s");
            }
            naiveMax = Math.max(naiveMax, (bytes - lastBytes) * 8e9 / (now - lastNow));
            lastBytes = bytes;
            lastNow = now;
        }
        assertTrue(naiveMax > LINK_BPS, "the naive per-interval rate overshoots: " + naiveMax / 1e6);
        double avg = rates.average(now, new long[] {k * CHUNK})[0];
        assertTrue(avg <= LINK_BPS && avg > 0.9 * LINK_BPS, "phase average " + avg / 1e6);
    }
}
