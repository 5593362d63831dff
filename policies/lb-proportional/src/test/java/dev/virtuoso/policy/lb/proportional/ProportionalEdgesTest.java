package dev.virtuoso.policy.lb.proportional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.PolicyContext;

/** The split's edges: measurements before the first message, paths the session has not heard of, shares. */
class ProportionalEdgesTest {
    private final ChunkPlacement out = new ChunkPlacement();

    private static ProportionalSession session(FakePaths paths, int minPercent, long minShare) {
        return (ProportionalSession) new ProportionalPolicy().newSession(
                new PolicyContext("c", Map.of("lb-proportional.minRelativeCapacityPercent", minPercent,
                        "lb-proportional.minShareBytes", minShare)), paths);
    }

    private static FakePaths paths(double... probed) {
        FakePaths p = new FakePaths(probed.length);
        p.probed = probed.clone();
        return p;
    }

    /** Asserts the bytes of the current message allocated to each path, in path order. */
    private static void assertSplit(ProportionalSession s, long... bytes) {
        long[] got = new long[bytes.length];
        for (int p = 0; p < bytes.length; p++) {
            got[p] = s.allocated(p);
        }
        org.junit.jupiter.api.Assertions.assertArrayEquals(bytes, got);
    }

    private static void measured(ProportionalSession s, int path, int chunks) {
        for (int k = 0; k < chunks; k++) {
            s.onChunkComplete(path, 65536, 1_000_000, ChunkOutcome.SUCCESS); // more than one packet: data
        }
    }

    @Test
    void dataCompletedBeforeTheFirstMessageCountsAndExactlyEnoughOfItSwitchesToTheEstimate() {
        FakePaths p = paths(100, 100);
        p.estimated = new double[] {300, 100};
        ProportionalSession s = session(p, 0, 0);
        measured(s, 0, ProportionalSession.MEASURED_AFTER_CHUNKS);
        s.onMessageStart(1, 4000);
        assertEquals(3000, s.allocated(0), "path 0 carried enough data: its estimate (300) counts, not the probe");
        assertEquals(1000, s.allocated(1));

        FakePaths q = paths(100, 100);
        q.estimated = new double[] {300, 100};
        ProportionalSession fewer = session(q, 0, 0);
        measured(fewer, 0, ProportionalSession.MEASURED_AFTER_CHUNKS - 1);
        fewer.onMessageStart(1, 4000);
        assertEquals(2000, fewer.allocated(0), "one chunk short: still the probe");
    }

    @Test
    void aPathAddedWithoutNoticeTakesPartInTheNextSplit() {
        FakePaths p = paths(100, 100);
        ProportionalSession s = session(p, 0, 0);
        p.resize(3);
        p.probed[2] = 100;
        s.onMessageStart(1, 3000);
        assertEquals(1000, s.allocated(2));
    }

    @Test
    void afterAPathChangeOnlyTheUnusablePathsAreMeasuredAfresh() {
        FakePaths p = paths(100, 100, 100);
        p.estimated = new double[] {300, 300, 100};
        ProportionalSession s = session(p, 0, 0);
        measured(s, 0, ProportionalSession.MEASURED_AFTER_CHUNKS);
        measured(s, 1, ProportionalSession.MEASURED_AFTER_CHUNKS);
        p.usable[1] = false;
        s.onPathsChanged();
        p.usable[1] = true;
        p.resize(4);
        p.probed[3] = 100;
        p.estimated[3] = 300;
        s.onPathsChanged();
        measured(s, 3, ProportionalSession.MEASURED_AFTER_CHUNKS); // a new path, measured before any message
        s.onMessageStart(1, 8000);
        assertEquals(3000, s.allocated(0), "kept its measurement (estimate 300)");
        assertEquals(1000, s.allocated(1), "was unusable: back on its probe (100)");
        assertEquals(1000, s.allocated(2));
        assertEquals(3000, s.allocated(3), "the new path's completions counted");
    }

    @Test
    void nothingLeftToPlaceIsNoPlacement() {
        ProportionalSession s = session(paths(100, 100), 0, 0);
        s.onMessageStart(1, 1000);
        assertFalse(s.place(1, 0, out));
    }

    @Test
    void aShareStrandedOnAFailedPathIsSplitAgainOverTheOthers() {
        FakePaths p = paths(100, 100);
        ProportionalSession s = session(p, 0, 0);
        assertTrue(s.place(1, 1000, out)); // 500 / 500
        assertEquals(0, out.path());
        p.post(0, 200); // a 200-byte chunk: path 0 keeps 300
        assertTrue(s.place(1, 800, out));
        assertEquals(1, out.path());
        p.post(1, 500); // path 1's whole share, still in flight
        p.usable[0] = false; // path 0 fails with 300 of its share unplaced
        assertTrue(s.place(1, 300, out), "the stranded 300 bytes are split again over the usable paths");
        assertEquals(1, out.path());
        assertEquals(300, out.maxBytes());
    }

    @Test
    void aPathWhoseShareIsUsedUpIsSkippedForOneThatHasSomeLeft() {
        FakePaths p = paths(100, 100);
        ProportionalSession s = session(p, 0, 0);
        assertTrue(s.place(1, 1000, out));
        assertEquals(0, out.path());
        p.post(0, 500);
        assertTrue(s.place(1, 500, out));
        assertEquals(1, out.path());
        p.post(1, 200); // the chunk on path 1 was cut to 200 bytes
        assertTrue(s.place(1, 300, out));
        assertEquals(1, out.path(), "path 0's share is used up (its chunk still in flight): path 1 has 300 left");
        assertEquals(300, out.maxBytes());
    }

    @Test
    void aPathBelowTheRelativeMinimumDoesNotShiftTheOthersWithItsBacklog() {
        FakePaths p = paths(100, 100, 1);
        p.inFlightBytes[2] = 1000;
        ProportionalSession s = session(p, 10, 0);
        s.onMessageStart(1, 1000);
        assertSplit(s, 500, 500, 0);
    }

    @Test
    void aBackloggedPathTakesPartAgainOnceItDrained() {
        FakePaths p = paths(100, 100);
        p.inFlightBytes[0] = 5000;
        ProportionalSession s = session(p, 0, 0);
        s.onMessageStart(1, 1000);
        assertEquals(0, s.allocated(0), "its backlog alone outlasts the message");
        assertEquals(1000, s.allocated(1));
        p.inFlightBytes[0] = 0;
        s.onMessageStart(2, 1000);
        assertSplit(s, 500, 500);
    }

    @Test
    void theMinimumShareIsNetOfInFlightBytesAndTheFirstOfEqualPathsSitsOut() {
        FakePaths p = paths(100, 100, 100);
        p.inFlightBytes[2] = 90_000;
        ProportionalSession s = session(p, 0, 64 * 1024);
        s.onMessageStart(1, 300_000);
        // 130,000 of the level minus 90,000 in flight is below the minimum: path 2 sits out
        assertSplit(s, 150_000, 150_000, 0);

        ProportionalSession equal = session(paths(100, 100, 100), 0, 64 * 1024);
        equal.onMessageStart(1, 150_000);
        assertSplit(equal, 0, 75_000, 75_000); // three shares of 50,000: the first path sits out

        ProportionalSession exact = session(paths(100, 100), 0, 64 * 1024);
        exact.onMessageStart(1, 128 * 1024);
        assertSplit(exact, 64 * 1024, 64 * 1024); // a share of exactly the minimum takes part
    }
}
