package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LatencyResultTest {

    @Test
    void summarisesHalfRoundTripsInMicroseconds() {
        long[] samples = new long[1000];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = (samples.length - i) * 1000L; // 1..1000 us, in reverse order
        }
        LatencyResult r = LatencyResult.of(64, samples);
        assertEquals(64, r.bytes());
        assertEquals(1000, r.iterations());
        assertEquals(1.0, r.min(), 1e-9);
        assertEquals(1000.0, r.max(), 1e-9);
        assertEquals(500.0, r.typical(), 1e-9, "the median (nearest rank)");
        assertEquals(500.5, r.average(), 1e-9);
        assertEquals(Math.sqrt((1000.0 * 1000 - 1) / 12), r.stdev(), 1e-6);
        assertEquals(990.0, r.p99(), 1e-9);
        assertEquals(999.0, r.p999(), 1e-9);
    }

    @Test
    void oneSampleIsEveryFigure() {
        LatencyResult r = LatencyResult.of(8, new long[] {2500});
        assertEquals(2.5, r.min(), 1e-9);
        assertEquals(2.5, r.typical(), 1e-9);
        assertEquals(2.5, r.p999(), 1e-9);
        assertEquals(0.0, r.stdev(), 1e-9);
    }

    @Test
    void noSampleIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> LatencyResult.of(8, new long[0]));
    }
}
