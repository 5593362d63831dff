package dev.virtuoso.policy.lb.adaptive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;

/** Single placement decisions of the adaptive session, with rates and queues set by hand. */
class AdaptiveSessionTest {
    private static final long MS = 1_000_000L;
    private static final long MIN_CHUNK = 4096;

    private final ChunkPlacement out = new ChunkPlacement();

    /** 10 ms chunks, 4 KiB minimum, full at one chunk and 10 ms of queue, exploring as asked. */
    private static AdaptiveSession session(FakePaths paths, int exploreEvery, boolean tailAware) {
        return new AdaptiveSession(paths,
                new AdaptiveSettings(10 * MS, MIN_CHUNK, 1, 10 * MS, 100 * MS, exploreEvery, MS, tailAware));
    }

    private static FakePaths paths(double... probed) {
        FakePaths p = new FakePaths(probed.length);
        p.probed = probed.clone();
        return p;
    }

    @Test
    void nothingLeftIsNotPlaced() {
        AdaptiveSession s = session(paths(1e8), 0, true);
        assertFalse(s.place(1, 0, out));
    }

    @Test
    void aPathWithoutAnyRateGetsAMinimalChunkFirst() {
        FakePaths p = paths(1e8, 0);
        AdaptiveSession s = session(p, 0, true);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(1, out.path());
        assertEquals(MIN_CHUNK, out.maxBytes());
        p.post(1, MIN_CHUNK);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(0, out.path(), "the unknown path waits for its first completion");
        assertEquals(1_000_000, out.maxBytes(), "10 ms at 100 MB/s");
    }

    @Test
    void chunksTakeTheChunkTimeButNeverLessThanTheMinimum() {
        AdaptiveSession s = session(paths(1e6), 0, true);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(10_000, out.maxBytes());
        AdaptiveSession slow = session(paths(1e5), 0, true);
        assertTrue(slow.place(1, 1 << 30, out));
        assertEquals(MIN_CHUNK, out.maxBytes());
    }

    @Test
    void thePathThatFinishesFirstWinsAndTiesGoToTheLowerSlot() {
        FakePaths p = paths(1e8, 5e7);
        AdaptiveSession s = session(p, 0, false);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(0, out.path(), "both finish a chunk in 10 ms");
        p.post(0, 500_000);
        p.inFlightChunks[0] = 0;
        assertTrue(s.place(2, 1 << 30, out));
        assertEquals(1, out.path(), "path 0 is 5 ms behind");
    }

    @Test
    void aPathIsFullAtItsQueueTarget() {
        FakePaths p = paths(1e8, 1e6);
        AdaptiveSession s = session(p, 0, false);
        p.post(0, 1_000_000);
        p.post(1, 10_000);
        assertFalse(s.place(1, 1 << 30, out), "both hold exactly 10 ms");
        p.complete(1, 10_000, true);
        p.post(1, 9_999);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(1, out.path(), "just below its target");
    }

    @Test
    void aChoiceTheCoreDidNotPostIsAvoidedUntilSomethingChanges() {
        FakePaths p = paths(1e8, 1e6);
        AdaptiveSession s = session(p, 0, false);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(0, out.path());
        assertTrue(s.place(1, 1 << 30, out), "asked again, nothing posted");
        assertEquals(1, out.path());
        assertFalse(s.place(1, 1 << 30, out), "both refused");
        s.onChunkComplete(1, 10, 1000, ChunkOutcome.SUCCESS);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(0, out.path(), "a completion lifts the refusals");
    }

    @Test
    void tailAwarenessKeepsTheLastBytesOffASlowPath() {
        FakePaths p = paths(1e8, 1e6);
        AdaptiveSession s = session(p, 0, true);
        assertTrue(s.place(1, 10_000, out));
        assertEquals(0, out.path());
        assertFalse(s.place(1, 10_000, out), "path 1 would finish 100x after the water level");

        AdaptiveSession plain = session(p, 0, false);
        assertTrue(plain.place(1, 10_000, out));
        assertTrue(plain.place(1, 10_000, out));
        assertEquals(1, out.path());
    }

    @Test
    void tailAwarenessLetsASlowPathHelpWhenTheFastOneIsBacklogged() {
        FakePaths p = paths(1e8, 1e6);
        AdaptiveSession s = session(p, 0, true);
        p.post(0, 1_000_000);
        assertTrue(s.place(1, 20_000, out));
        assertEquals(1, out.path(), "10 ms on path 1 ends before the 10.1 ms water level");
    }

    @Test
    void pathsBeyondTheWaterLevelTakeNoPartInIt() {
        // path 0 is 100 s behind, beyond any level; paths 1 and 2 alone reach a level of 10.5 ms,
        // below slow path 2's 41 ms chunk, although with path 0 the level would be about 1 s
        FakePaths p = paths(1e6, 1e8, 1e5);
        AdaptiveSession s = session(p, 0, true);
        p.post(0, 100_000_000);
        p.inFlightChunks[0] = 0;
        p.post(1, 1_000_000);
        assertFalse(s.place(1, 50_000, out));
        assertTrue(s.place(1, 1 << 30, out), "with a gigabyte left path 2 helps");
        assertEquals(2, out.path());
    }

    /** Path 0 busy but below its queue target (scores 15 ms), path 1 slow and last active at 5 ms. */
    private AdaptiveSession exploring(FakePaths p, int exploreEvery) {
        AdaptiveSession s = session(p, exploreEvery, false);
        p.post(0, 500_000);
        p.now = 5 * MS;
        s.onChunkComplete(1, 10, 1000, ChunkOutcome.SUCCESS);
        return s;
    }

    @Test
    void aPathIdleForExploreIdleIsExplored() {
        FakePaths p = paths(1e8, 1e5);
        AdaptiveSession s = exploring(p, 1);
        p.now = 6 * MS;
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(1, out.path(), "idle exactly 1 ms");
        assertEquals(MIN_CHUNK, out.maxBytes());
    }

    @Test
    void aPathIdleForLessIsNotExplored() {
        FakePaths p = paths(1e8, 1e5);
        AdaptiveSession s = exploring(p, 1);
        p.now = 6 * MS - 1;
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(0, out.path(), "the best score wins");
    }

    @Test
    void explorationRunsEveryNthDecisionOnly() {
        FakePaths p = paths(1e8, 1e5);
        AdaptiveSession s = exploring(p, 2);
        p.now = 10 * MS;
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(0, out.path(), "decision 1 of 2 scores");
        p.post(0, 0);
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(1, out.path(), "decision 2 of 2 explores");
    }

    @Test
    void ratesAreMeasuredFromCompletions() {
        FakePaths p = paths(0, 0);
        AdaptiveSession s = session(p, 0, false);
        p.now = 10 * MS;
        s.onChunkComplete(0, 100_000, MS, ChunkOutcome.SUCCESS);
        assertEquals(1e8, s.measuredRate(0), 1, "100 kB in exactly the 1 ms minimum sample");
        p.now = 11 * MS;
        s.onChunkComplete(0, 50_000, 5 * MS, ChunkOutcome.SUCCESS);
        double w = 1 - Math.exp(-1e6 / 1e8);
        assertEquals(1e8 + w * (5e7 - 1e8), s.measuredRate(0), 1, "busy since the last completion");
        assertEquals(0, s.measuredRate(1));
        assertEquals(0, s.measuredRate(2), "beyond the paths");
        s.onChunkComplete(2, 100, 1, ChunkOutcome.SUCCESS);
        s.onChunkComplete(-1, 100, 1, ChunkOutcome.SUCCESS);
    }

    @Test
    void shortSamplesAccumulateAndFailuresEndTheBusyInterval() {
        FakePaths p = paths(0);
        AdaptiveSession s = session(p, 0, false);
        p.now = 10 * MS;
        s.onChunkComplete(0, 10_000, MS / 2, ChunkOutcome.SUCCESS);
        assertEquals(0, s.measuredRate(0), "half a sample");
        p.now = 20 * MS;
        s.onChunkComplete(0, 1, 20 * MS, ChunkOutcome.FLUSHED);
        p.now = 20 * MS + MS / 2;
        s.onChunkComplete(0, 10_000, 20 * MS, ChunkOutcome.SUCCESS);
        assertEquals(20_000 * 1e9 / MS, s.measuredRate(0), 1, "busy from the failure, not from the post");
    }

    @Test
    void aPathComingBackIsMeasuredAfresh() {
        FakePaths p = paths(0, 0);
        AdaptiveSession s = session(p, 0, false);
        s.place(1, 1 << 30, out);
        p.now = 10 * MS;
        s.onChunkComplete(0, 100_000, MS, ChunkOutcome.SUCCESS);
        assertTrue(s.measuredRate(0) > 0);
        p.usable[0] = false;
        s.place(1, 1 << 30, out);
        assertTrue(s.measuredRate(0) > 0, "kept while unusable");
        p.usable[0] = true;
        s.place(1, 1 << 30, out);
        assertEquals(0, s.measuredRate(0));
    }

    @Test
    void addedPathsAreSeenAfterPathsChanged() {
        FakePaths p = paths(1e8);
        AdaptiveSession s = session(p, 0, false);
        p.post(0, 1_000_000);
        assertFalse(s.place(1, 1 << 30, out));
        p.resize(2);
        s.onPathsChanged();
        assertTrue(s.place(1, 1 << 30, out));
        assertEquals(1, out.path());
        assertEquals(MIN_CHUNK, out.maxBytes());
    }
}
