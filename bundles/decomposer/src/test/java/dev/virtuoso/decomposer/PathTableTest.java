package dev.virtuoso.decomposer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;

class PathTableTest {
    private static final long T0 = 1_000_000_000L;
    private static final long WINDOW = PathTable.RATE_WINDOW_NANOS;

    @Test
    void capacityMustBePositiveAndOneSlotIsEnough() {
        assertThrows(IllegalArgumentException.class, () -> new PathTable(0));
        PathTable t = new PathTable(1);
        assertEquals(1, t.capacity());
        assertEquals(0, t.pathCount());
        assertEquals(PathState.DOWN, t.state(0), "an unused slot reads DOWN");
    }

    @Test
    void addNumbersSlotsInOrderUpUntilFull() {
        PathTable t = new PathTable(2);
        assertEquals(0, t.add());
        assertEquals(1, t.add());
        assertEquals(2, t.pathCount());
        assertEquals(PathState.UP, t.state(1));
        assertThrows(IllegalStateException.class, t::add);
        assertEquals(2, t.pathCount());
    }

    @Test
    void emptyTableHasNoUpOrHealthyPath() {
        PathTable t = new PathTable(1);
        assertFalse(t.anyUp());
        assertFalse(t.anyHealthy());
    }

    @Test
    void anyUpAndAnyHealthyFollowStateAndErrors() {
        PathTable t = new PathTable(2);
        t.add();
        t.add();
        assertTrue(t.anyUp());
        assertTrue(t.anyHealthy());

        t.state(0, PathState.DOWN);
        t.onPosted(1, 100);
        t.onCompleted(1, 100, -1, false);
        assertTrue(t.anyUp(), "path 1 is still UP");
        assertFalse(t.anyHealthy(), "path 1 failed since its last success, path 0 is DOWN");

        t.onPosted(1, 100);
        t.onCompleted(1, 100, -1, true);
        assertTrue(t.anyHealthy(), "a success ends the probation");

        t.state(1, PathState.DOWN);
        assertFalse(t.anyUp());
        assertFalse(t.anyHealthy());
    }

    @Test
    void healthyPathAfterAFailingOneIsFound() {
        PathTable t = new PathTable(2);
        t.add();
        t.add();
        t.onPosted(0, 1);
        t.onCompleted(0, 1, -1, false);
        assertTrue(t.anyHealthy());
        t.state(1, PathState.DOWN);
        assertFalse(t.anyHealthy());
        assertTrue(t.anyUp());
    }

    @Test
    void usableOnlyForAddedUpPaths() {
        PathTable t = new PathTable(2);
        t.add();
        assertTrue(t.usable(0));
        assertFalse(t.usable(-1));
        assertFalse(t.usable(1), "slot 1 was never added");
        t.add();
        assertFalse(t.usable(2), "beyond the table");
        t.state(0, PathState.DOWN);
        assertFalse(t.usable(0));
    }

    @Test
    void postsAndCompletionsKeepInFlightAndCompletedCounts() {
        PathTable t = new PathTable(1);
        t.add();
        t.onPosted(0, 1000);
        t.onPosted(0, 500);
        assertEquals(1500, t.inFlightBytes(0));
        assertEquals(2, t.inFlightChunks(0));

        t.onCompleted(0, 1000, 10, true);
        assertEquals(500, t.inFlightBytes(0));
        assertEquals(1, t.inFlightChunks(0));
        assertEquals(1000, t.completedBytes(0));
        assertEquals(1, t.chunksCompleted(0));
        assertEquals(0, t.chunksFailed(0));

        t.onCompleted(0, 500, -1, false);
        assertEquals(0, t.inFlightBytes(0));
        assertEquals(0, t.inFlightChunks(0));
        assertEquals(1000, t.completedBytes(0), "a failed chunk adds no completed bytes");
        assertEquals(1, t.chunksCompleted(0));
        assertEquals(1, t.chunksFailed(0));
        assertEquals(1, t.consecutiveErrors(0));
    }

    @Test
    void consecutiveErrorsCountUntilASuccess() {
        PathTable t = new PathTable(1);
        t.add();
        for (int i = 0; i < 3; i++) {
            t.onPosted(0, 1);
            t.onCompleted(0, 1, -1, false);
        }
        assertEquals(3, t.consecutiveErrors(0));
        assertEquals(3, t.chunksFailed(0));
        t.onPosted(0, 1);
        t.onCompleted(0, 1, 5, true);
        assertEquals(0, t.consecutiveErrors(0));
        assertEquals(3, t.chunksFailed(0));
    }

    @Test
    void latencyIsSmoothedWithAnEighthGain() {
        PathTable t = new PathTable(1);
        t.add();
        t.onPosted(0, 1);
        t.onCompleted(0, 1, 800, true);
        assertEquals(800, t.smoothedLatencyNanos(0), "the first sample is taken as is");
        t.onPosted(0, 1);
        t.onCompleted(0, 1, 1600, true);
        assertEquals(900, t.smoothedLatencyNanos(0));
        t.onPosted(0, 1);
        t.onCompleted(0, 1, 0, true);
        assertEquals(900 - 900 / 8 - 1, t.smoothedLatencyNanos(0), "a zero latency is a sample (floor shift)");
        t.onPosted(0, 1);
        t.onCompleted(0, 1, -1, true);
        assertEquals(900 - 900 / 8 - 1, t.smoothedLatencyNanos(0), "a negative latency is no sample");
    }

    @Test
    void rateIsSampledOverAWindowOfExactlyTwoMilliseconds() {
        PathTable t = new PathTable(1);
        t.add();
        t.clock(T0);
        t.onPosted(0, 1000);
        t.clock(T0 + WINDOW);
        t.onCompleted(0, 1000, 1, true);
        assertEquals(1000 * 1e9 / WINDOW, t.estimatedRate(0), 1e-6);
        assertEquals(T0 + WINDOW, t.nowNanos());
    }

    @Test
    void laterSamplesMoveTheRateByAQuarter() {
        PathTable t = new PathTable(1);
        t.add();
        t.clock(T0);
        t.onPosted(0, 1000);
        t.clock(T0 + WINDOW);
        t.onCompleted(0, 1000, 1, true);
        double first = 1000 * 1e9 / WINDOW;

        long t1 = T0 + 10 * WINDOW;
        t.clock(t1);
        t.onPosted(0, 3000);
        t.clock(t1 + 2 * WINDOW);
        t.onCompleted(0, 3000, 1, true);
        double second = 3000 * 1e9 / (2 * WINDOW);
        assertEquals(first + 0.25 * (second - first), t.estimatedRate(0), 1e-6);
    }

    @Test
    void aBurstShorterThanTheWindowIsNotCarriedIntoTheNextOne() {
        PathTable t = new PathTable(1);
        t.add();
        t.clock(T0);
        t.onPosted(0, 5000);
        t.clock(T0 + WINDOW / 2);
        t.onCompleted(0, 5000, 1, true);
        assertEquals(0.0, t.estimatedRate(0), "no full window yet");

        long t1 = T0 + 100 * WINDOW;
        t.clock(t1);
        t.onPosted(0, 1000);
        t.clock(t1 + WINDOW);
        t.onCompleted(0, 1000, 1, true);
        assertEquals(1000 * 1e9 / WINDOW, t.estimatedRate(0), 1e-6, "the window restarted at the second post");
    }

    @Test
    void aBusyPathStartsTheNextWindowAtTheSample() {
        PathTable t = new PathTable(1);
        t.add();
        t.clock(T0);
        t.onPosted(0, 1000);
        t.clock(T0 + WINDOW / 2);
        t.onPosted(0, 2000);
        t.clock(T0 + WINDOW);
        t.onCompleted(0, 1000, 1, true);
        double first = 1000 * 1e9 / WINDOW;
        assertEquals(first, t.estimatedRate(0), 1e-6, "the window opened at the first post");

        t.clock(T0 + 3 * WINDOW);
        t.onCompleted(0, 2000, 1, true);
        double second = 2000 * 1e9 / (2 * WINDOW);
        assertEquals(first + 0.25 * (second - first), t.estimatedRate(0), 1e-6,
                "the second window opened when the first was sampled");
    }

    @Test
    void failedChunksCloseAWindowWithoutBytes() {
        PathTable t = new PathTable(1);
        t.add();
        t.clock(T0);
        t.onPosted(0, 1000);
        t.onPosted(0, 1000);
        t.clock(T0 + WINDOW);
        t.onCompleted(0, 1000, 1, true);
        double first = 1000 * 1e9 / WINDOW;
        t.clock(T0 + 2 * WINDOW);
        t.onCompleted(0, 1000, -1, false);
        assertEquals(first + 0.25 * (0 - first), t.estimatedRate(0), 1e-6);
    }

    @Test
    void aWindowStartingAtClockZeroIsSampled() {
        PathTable t = new PathTable(1);
        t.add();
        t.clock(0);
        t.onPosted(0, 1000);
        t.clock(WINDOW);
        t.onCompleted(0, 1000, 1, true);
        assertEquals(1000 * 1e9 / WINDOW, t.estimatedRate(0), 1e-6);
    }

    @Test
    void probedCapacityIsStoredPerPath() {
        PathTable t = new PathTable(2);
        t.add();
        t.add();
        t.probedCapacity(1, 1.5e9);
        assertEquals(0.0, t.probedCapacity(0));
        assertEquals(1.5e9, t.probedCapacity(1));
    }
}
