package dev.virtuoso.decomposer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;

/** Released slots are reused by later additions with fresh counters; at most capacity exist at once. */
class PathTableSlotReuseTest {

    @Test
    void aReleasedSlotIsReusedWithFreshCounters() {
        PathTable t = new PathTable(2);
        assertEquals(0, t.add());
        assertEquals(1, t.add());
        t.onPosted(1, 100);
        t.onCompleted(1, 100, 5, true);
        t.probedCapacity(1, 1e9);
        assertThrows(IllegalStateException.class, t::add, "full while both are in use");
        t.release(1);
        assertEquals(PathState.DOWN, t.state(1));
        assertEquals(1, t.slotsInUse());
        assertEquals(100, t.completedBytes(1), "a released slot keeps its last counters until reused");
        assertEquals(1, t.add());
        assertEquals(PathState.UP, t.state(1));
        assertEquals(0, t.completedBytes(1));
        assertEquals(0, t.chunksCompleted(1));
        assertEquals(0, t.smoothedLatencyNanos(1));
        assertEquals(0.0, t.probedCapacity(1));
        assertEquals(2, t.pathCount());
        assertEquals(2, t.slotsInUse());
    }

    @Test
    void aSlotWithChunksInFlightCannotBeReleased() {
        PathTable t = new PathTable(2);
        t.add();
        t.onPosted(0, 10);
        assertThrows(IllegalStateException.class, () -> t.release(0));
    }

    @Test
    void thousandsOfReleasesNeverGrowTheTable() {
        PathTable t = new PathTable(3);
        t.add();
        for (int i = 0; i < 5000; i++) {
            int p = t.add();
            t.release(p);
        }
        assertEquals(2, t.pathCount());
    }

    @Test
    void capacityIsBoundedByTheWidthOfPathMasks() {
        assertEquals(64, new PathTable(PathTable.MAX_CAPACITY).capacity());
        assertThrows(IllegalArgumentException.class, () -> new PathTable(PathTable.MAX_CAPACITY + 1));
    }
}
