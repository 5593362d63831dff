package dev.virtuoso.policy.lb.proportional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.PolicyContext;

/** Equation 1 allocation edge cases, byte for byte. */
class ProportionalAllocationTest {
    private final ChunkPlacement out = new ChunkPlacement();

    private static ProportionalSession session(FakePaths paths, int minPercent) {
        return (ProportionalSession) new ProportionalPolicy().newSession(
                new PolicyContext("c", Map.of("lb-proportional.minRelativeCapacityPercent", minPercent,
                        "lb-proportional.minShareBytes", 0)), paths); // byte-level equation 1: no minimum share
    }

    private static FakePaths paths(double... probed) {
        FakePaths p = new FakePaths(probed.length);
        p.probed = probed.clone();
        return p;
    }

    @Test
    void percentMustBeZeroToHundred() {
        FakePaths p = paths(1);
        assertTrue(session(p, 0) != null);
        assertTrue(session(p, 100) != null);
        assertThrows(IllegalArgumentException.class, () -> session(p, -1));
        assertThrows(IllegalArgumentException.class, () -> session(p, 101));
        assertEquals("lb-proportional", new ProportionalPolicy().name());
    }

    /**
     * Two control messages (24 B) completing on path 2 before any data chunk do not make its
     * estimated rate its weight: it keeps its probed capacity and its share (before, the estimate
     * from those two messages, a few kbit/s, left the path out of every message for good).
     */
    @Test
    void controlMessagesOnAPathAreNotDataChunksThatMeasureIt() {
        FakePaths p = paths(1e7, 1e7, 1e7);
        p.estimated = new double[] {0, 0, 3e3};
        ProportionalSession s = session(p, 0);
        s.onChunkComplete(2, 24, 100_000, ChunkOutcome.SUCCESS);
        s.onChunkComplete(2, 24, 100_000, ChunkOutcome.SUCCESS);
        s.onMessageStart(1, 3000);
        assertEquals(1000, s.allocated(2), "weighed by its probed capacity");
        s.onChunkComplete(2, 65536, 100_000, ChunkOutcome.SUCCESS);
        s.onChunkComplete(2, 65536, 100_000, ChunkOutcome.SUCCESS);
        s.onMessageStart(2, 3000);
        assertEquals(0, s.allocated(2), "two data chunks: its measured rate weighs it (here next to nothing)");
    }

    @Test
    void theRemainderOfTheSplitGoesToTheFirstHeaviestPath() {
        ProportionalSession s = session(paths(1, 1, 1), 0);
        s.onMessageStart(1, 10);
        assertEquals(4, s.allocated(0));
        assertEquals(3, s.allocated(1));
        assertEquals(3, s.allocated(2));
        assertEquals(0, s.allocated(3), "beyond the paths");
    }

    @Test
    void bytesStillInFlightCountAgainstAPathsShare() {
        // both paths finish together: 100 x T - 400 on path 0, 100 x T on path 1, summing to 1000
        FakePaths p = paths(100, 100);
        p.inFlightBytes[0] = 400;
        ProportionalSession s = session(p, 0);
        s.onMessageStart(1, 1000);
        assertEquals(300, s.allocated(0));
        assertEquals(700, s.allocated(1));
    }

    @Test
    void aPathWhoseBacklogOutlastsTheMessageGetsNoneOfIt() {
        FakePaths p = paths(100, 100, 50);
        p.inFlightBytes[0] = 5000;
        p.inFlightBytes[2] = 100;
        ProportionalSession s = session(p, 0);
        s.onMessageStart(1, 1000);
        assertEquals(0, s.allocated(0), "its in-flight bytes alone take longer than the others' share");
        // 100 T + 50 T - 100 = 1000: T = 22
        assertEquals(734, s.allocated(1), "and the rounding");
        assertEquals(266, s.allocated(2));
    }

    @Test
    void aPathThatUsedUpItsShareAndDrainedGetsPartOfTheRest() {
        FakePaths p = paths(100, 100);
        ProportionalSession s = session(p, 0);
        s.onMessageStart(1, 1000);
        assertTrue(s.place(1, 1000, out));
        assertEquals(0, out.path());
        assertEquals(500, out.maxBytes());
        p.post(0, 500);
        p.complete(0, 500, true); // path 1 had no room meanwhile: its share waits
        assertTrue(s.place(1, 500, out));
        assertEquals(250, s.allocated(0), "the idle path takes part in the split of the rest");
        assertEquals(250, s.allocated(1));
        assertEquals(1, out.path());
        assertEquals(250, out.maxBytes());
    }

    @Test
    void aPathStillCarryingItsShareDoesNotSplitTheRestAgain() {
        FakePaths p = paths(100, 100);
        ProportionalSession s = session(p, 0);
        s.onMessageStart(1, 1000);
        assertTrue(s.place(1, 1000, out));
        p.post(0, 500); // still in flight
        assertTrue(s.place(1, 500, out));
        assertEquals(0, s.allocated(0));
        assertEquals(500, s.allocated(1));
        assertEquals(1, out.path());
    }

    @Test
    void noPathGetsLessThanTheMinimumShare() {
        FakePaths p = paths(200, 100, 50, 25);
        ProportionalSession s = (ProportionalSession) new ProportionalPolicy().newSession(
                new PolicyContext("c", Map.of()), p); // the default minimum: 64 KiB
        s.onMessageStart(1, 375 * 1024);
        // 200/100/50/25 KiB: the 25 KiB share is below 64 KiB, so path 3 is left out; then 50 of 350 x
        // 375 KiB = 53.6 KiB is too: path 2 as well; 375 KiB over 200 and 100 KiB/s remains
        assertEquals(256000, s.allocated(0));
        assertEquals(128000, s.allocated(1));
        assertEquals(0, s.allocated(2));
        assertEquals(0, s.allocated(3));
        s.onMessageStart(2, 60 * 1024);
        assertEquals(60 * 1024, s.allocated(0), "below the minimum on any split: whole on the fastest path");
        s.onMessageStart(3, 16L << 20);
        assertEquals(16L << 20, s.allocated(0) + s.allocated(1) + s.allocated(2) + s.allocated(3));
        assertTrue(s.allocated(3) > 0, "a large message goes over every path");
    }

    @Test
    void theMinimumShareMustNotBeNegative() {
        assertThrows(IllegalArgumentException.class, () -> new ProportionalPolicy().newSession(
                new PolicyContext("c", Map.of("lb-proportional.minShareBytes", -1)), paths(1)));
    }

    @Test
    void aTinyMessageOverBacklogsStillGoesWhole() {
        FakePaths p = paths(1, 1);
        p.inFlightBytes[0] = 10;
        p.inFlightBytes[1] = 10;
        ProportionalSession s = session(p, 0);
        s.onMessageStart(1, 1);
        assertEquals(1, s.allocated(0) + s.allocated(1));
    }

    @Test
    void aPathExactlyAtTheMinimumRelativeCapacityKeepsItsShare() {
        ProportionalSession s = session(paths(100, 50, 49), 50);
        s.onMessageStart(1, 1500);
        assertEquals(1000, s.allocated(0));
        assertEquals(500, s.allocated(1));
        assertEquals(0, s.allocated(2), "below half of the fastest");
    }

    @Test
    void unusablePathsGetNothing() {
        FakePaths p = paths(0, 0, 0);
        p.usable[1] = false;
        ProportionalSession s = session(p, 0);
        s.onMessageStart(1, 1000);
        assertEquals(500, s.allocated(0));
        assertEquals(0, s.allocated(1));
        assertEquals(500, s.allocated(2));
    }

    @Test
    void withNoUsablePathNothingIsPlaced() {
        FakePaths p = paths(1, 1);
        p.usable[0] = false;
        p.usable[1] = false;
        ProportionalSession s = session(p, 0);
        s.onMessageStart(1, 1000);
        assertEquals(0, s.allocated(0));
        assertFalse(s.place(1, 1000, out));
    }

    @Test
    void aMessageFirstSeenInPlaceIsAllocated() {
        ProportionalSession s = session(paths(3, 1), 0);
        assertTrue(s.place(7, 4000, out));
        assertEquals(0, out.path());
        assertEquals(3000, out.maxBytes());
        assertEquals(1000, s.allocated(1));
        assertTrue(s.place(8, 400, out), "another message: allocated afresh");
        assertEquals(300, s.allocated(0));
        assertEquals(100, s.allocated(1));
    }

    @Test
    void bytesCarriedByAChunkComeOffItsPathsAllocation() {
        ProportionalSession s = session(paths(1, 1), 0);
        s.onMessageStart(1, 1000);
        assertTrue(s.place(1, 1000, out));
        assertEquals(0, out.path());
        assertTrue(s.place(1, 999, out));
        assertEquals(499, s.allocated(0), "one byte carried");
        assertEquals(1, out.path(), "round robin among the paths with bytes left");
        assertTrue(s.place(1, 999, out), "nothing carried: the same answer");
        assertEquals(500, s.allocated(1));
        assertFalse(s.place(1, 0, out));
    }

    @Test
    void addedPathsShareTheNextMessage() {
        FakePaths p = paths(1, 1);
        ProportionalSession s = session(p, 0);
        p.resize(3);
        p.probed[2] = 1;
        s.onPathsChanged();
        s.onMessageStart(1, 300);
        assertEquals(100, s.allocated(2));
        assertTrue(s.place(1, 300, out));
        assertTrue(s.place(1, 200, out));
        assertTrue(s.place(1, 100, out));
        assertEquals(2, out.path());
    }
}
