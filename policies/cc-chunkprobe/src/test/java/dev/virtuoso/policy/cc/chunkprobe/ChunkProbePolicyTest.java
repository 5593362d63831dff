package dev.virtuoso.policy.cc.chunkprobe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.policy.cc.chunkprobe.api.ChunkSizeStats;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.PolicyContext;

class ChunkProbePolicyTest {
    private static final long KIB = 1024;

    /**
     * A lossy path as the paper describes it: a WR larger than {@code threshold} overflows the
     * bottleneck and ends in RETRY_EXC_ERR, which puts the QP in error: the WRs behind it are
     * flushed (the core re-posts their bytes). The core keeps the session's window full with
     * chunks of the session's current size, posted in turns as completions arrive.
     */
    static final class LossyPath {
        final int path;
        final long threshold;
        final ArrayDeque<Long> outstanding = new ArrayDeque<>();
        final List<Long> sizes = new ArrayList<>();

        LossyPath(int path, long threshold) {
            this.path = path;
            this.threshold = threshold;
        }

        void run(CongestionAvoidanceSession cc, int completions) {
            for (int i = 0; i < completions; i++) {
                while (outstanding.size() < cc.maxOutstandingChunks(path)) {
                    long size = cc.maxChunkBytes(path);
                    if (sizes.isEmpty() || sizes.get(sizes.size() - 1) != size) {
                        sizes.add(size);
                    }
                    outstanding.addLast(size);
                }
                long chunk = outstanding.pollFirst();
                if (chunk <= threshold) {
                    cc.onChunkComplete(path, chunk, 1000, ChunkOutcome.SUCCESS);
                } else {
                    cc.onChunkComplete(path, chunk, 1000, ChunkOutcome.RETRY_EXCEEDED);
                    while (!outstanding.isEmpty()) {
                        cc.onChunkComplete(path, outstanding.pollFirst(), 0, ChunkOutcome.FLUSHED);
                    }
                }
            }
        }
    }

    /**
     * The paper's rules: levels of one chunk (each success of a full-size chunk is a completed level),
     * one WR in flight per path, starting at 64 KiB, a size kept unless it is slower (no gain asked).
     */
    static final Map<String, Object> ONE_CHUNK_LEVELS = Map.of("cc-chunkprobe.levelChunks", 1,
            "cc-chunkprobe.levelBytes", 1, "cc-chunkprobe.window", 1, "cc-chunkprobe.initialChunkBytes", 65536,
            "cc-chunkprobe.gainPercent", 0);

    private static ChunkProbeSession session(ChunkProbePolicy policy, String id, FakePaths paths,
            Map<String, Object> props) {
        Map<String, Object> all = new java.util.HashMap<>(ONE_CHUNK_LEVELS);
        all.putAll(props);
        return (ChunkProbeSession) policy.newSession(new PolicyContext(id, all), paths);
    }

    @Test
    void binaryIncreaseThenBackThenLinearOnALossThreshold() {
        ChunkProbePolicy policy = new ChunkProbePolicy();
        ChunkProbeSession cc = session(policy, "c1", new FakePaths(1), Map.of());
        assertEquals(1, cc.maxOutstandingChunks(0), "one WR in flight per path, posted in turns");
        LossyPath path = new LossyPath(0, 700_417); // Table 2, one path
        path.run(cc, 200);
        assertEquals(List.of(64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB, 1024 * KIB, // binary until the loss
                512 * KIB, // back to the previous size
                576 * KIB, 640 * KIB, 704 * KIB, // linear
                640 * KIB), // back: threshold found
                path.sizes);
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
        ChunkSizeStats st = policy.statistics("c1").get(0);
        assertEquals("STEADY", st.phase());
        assertEquals(640 * KIB, st.safeChunkBytes());
        assertEquals(640 * KIB, st.maxCompletedChunkBytes());
        assertEquals(2, st.losses());
        assertTrue(st.averageCompletedChunkBytes() > 600 * KIB && st.averageCompletedChunkBytes() < 640 * KIB,
                "most chunks at the threshold: " + st.averageCompletedChunkBytes());
    }

    @Test
    void eachPathFindsItsOwnThreshold() {
        ChunkProbePolicy policy = new ChunkProbePolicy();
        FakePaths paths = new FakePaths(4);
        ChunkProbeSession cc = session(policy, "c2", paths, Map.of("cc-chunkprobe.linearStepBytes", 16 * KIB));
        long[] thresholds = {300_000, 700_417, 1_300_000, 2_600_000};
        for (int p = 0; p < 4; p++) {
            new LossyPath(p, thresholds[p]).run(cc, 300);
        }
        List<ChunkSizeStats> stats = policy.statistics("c2");
        assertEquals(4, stats.size());
        for (int p = 0; p < 4; p++) {
            long safe = stats.get(p).safeChunkBytes();
            assertTrue(safe <= thresholds[p] && safe > thresholds[p] - 16 * KIB,
                    "path " + p + " threshold " + thresholds[p] + " found " + safe);
        }
        assertEquals(List.of("c2"), policy.connections());
        String table = policy.chunksizesText();
        assertTrue(table.contains("connection c2") && table.contains("paths 4: safe sizes sum "
                + stats.stream().mapToLong(ChunkSizeStats::safeChunkBytes).sum()), table);
        cc.close();
        assertTrue(policy.chunksizesText().startsWith("no connection uses"));
        assertEquals(List.of(), policy.connections());
        assertEquals(List.of(), policy.statistics("c2"));
    }

    @Test
    void tailsAndFlushesProveNothing() {
        ChunkProbeSession cc = session(new ChunkProbePolicy(), "c", new FakePaths(1), Map.of());
        cc.onChunkComplete(0, 1000, 10, ChunkOutcome.SUCCESS);
        assertEquals(64 * KIB, cc.maxChunkBytes(0), "a small tail chunk does not grow the size");
        cc.onChunkComplete(0, 64 * KIB, 10, ChunkOutcome.FLUSHED);
        cc.onChunkComplete(0, 64 * KIB, 10, ChunkOutcome.RNR_RETRY_EXCEEDED);
        assertEquals(64 * KIB, cc.maxChunkBytes(0));
        cc.onChunkComplete(0, 64 * KIB, 10, ChunkOutcome.SUCCESS);
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
    }

    @Test
    void chunksTheLoadBalancerCutBelowTheSizeStillTestIt() {
        // lb-adaptive sizes chunks by rate (rate x chunk time): at 256 KiB they came as 240 KB, and
        // a level that only counted full-size chunks never completed (found on the 4-path, 1% loss row)
        ChunkProbePolicy policy = new ChunkProbePolicy();
        ChunkProbeSession cc = session(policy, "c", new FakePaths(1), Map.of());
        cc.onChunkComplete(0, 64 * KIB, 1000, ChunkOutcome.SUCCESS);
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        cc.onChunkComplete(0, 64 * KIB, 1000, ChunkOutcome.SUCCESS);
        assertEquals(128 * KIB, cc.maxChunkBytes(0), "a chunk at half the size is a tail");
        cc.onChunkComplete(0, 120 * KIB, 1900, ChunkOutcome.SUCCESS);
        assertEquals(256 * KIB, cc.maxChunkBytes(0), "a cut chunk above the proven size completes the level");
        assertEquals(120 * KIB, policy.statistics("c").get(0).safeChunkBytes(), "the level proved its largest chunk");
        cc.onChunkComplete(0, 120 * KIB, 1900, ChunkOutcome.SUCCESS);
        assertEquals(256 * KIB, cc.maxChunkBytes(0), "no larger than the proven size: a tail");
        cc.onChunkComplete(0, 240 * KIB, 40_000, ChunkOutcome.SUCCESS);
        assertEquals(120 * KIB, cc.maxChunkBytes(0), "a cut chunk that completes much slower backs off");
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));
    }

    @Test
    void aChunkPostedBeforeABackOffProvesNoMoreThanTheSize() {
        ChunkProbePolicy policy = new ChunkProbePolicy();
        ChunkProbeSession cc = session(policy, "c", new FakePaths(1), Map.of());
        cc.onChunkComplete(0, 64 * KIB, 1000, ChunkOutcome.SUCCESS);
        cc.onChunkComplete(0, 512 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(64 * KIB, cc.maxChunkBytes(0));
        cc.onChunkComplete(0, 128 * KIB, 2000, ChunkOutcome.SUCCESS); // posted at 128 KiB before the loss
        assertEquals(64 * KIB, policy.statistics("c").get(0).safeChunkBytes());
        assertEquals(80 * KIB, cc.maxChunkBytes(0), "linear step from the proven 64 KiB");
    }

    @Test
    void lossesBeforeAnySuccessHalveAndLossesAtTheProvenSizeBackOff() {
        ChunkProbeSession cc = session(new ChunkProbePolicy(), "c", new FakePaths(1), Map.of());
        cc.onChunkComplete(0, 64 * KIB, 10, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(32 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.BINARY, cc.phase(0));
        cc.onChunkComplete(0, 32 * KIB, 10, ChunkOutcome.SUCCESS);
        assertEquals(64 * KIB, cc.maxChunkBytes(0));
        cc.onChunkComplete(0, 64 * KIB, 10, ChunkOutcome.SUCCESS);
        cc.onChunkComplete(0, 128 * KIB, 10, ChunkOutcome.SUCCESS);
        // now 256 KiB; a loss of a proven 128 KiB chunk means the path got worse
        cc.onChunkComplete(0, 128 * KIB, 10, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(64 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));
        for (int i = 0; i < 20; i++) {
            cc.onChunkComplete(0, 4 * KIB, 10, ChunkOutcome.RETRY_EXCEEDED);
        }
        assertEquals(4 * KIB, cc.maxChunkBytes(0), "never below minChunkBytes");
    }

    @Test
    void boundsAndReprobing() {
        ChunkProbeSession cc = session(new ChunkProbePolicy(), "c", new FakePaths(1),
                Map.of("cc-chunkprobe.maxChunkBytes", 256 * KIB, "cc-chunkprobe.reprobeAfterChunks", 3,
                        "cc-chunkprobe.window", 4, "cc-chunkprobe.reprobeJitterPercent", 0)); // exact waits
        assertEquals(4, cc.maxOutstandingChunks(0));
        LossyPath path = new LossyPath(0, 200 * KIB);
        path.run(cc, 40);
        assertEquals(200 * KIB, cc.maxChunkBytes(0),
                "128 KiB + steps of a quarter of the proven size (32, 40 KiB); 250 KiB fails");
        LossyPath better = new LossyPath(0, 10_000 * KIB);
        better.run(cc, 40);
        assertEquals(256 * KIB, cc.maxChunkBytes(0), "re-probed upwards to the maximum");
    }

    @Test
    void newPathsStartProbingAndSettingsAreValidated() {
        FakePaths paths = new FakePaths(1);
        ChunkProbePolicy policy = new ChunkProbePolicy();
        ChunkProbeSession cc = session(policy, "c", paths, Map.of("cc-chunkprobe.initialChunkBytes", 8 * KIB));
        paths.resize(2);
        cc.onPathsChanged();
        assertEquals(8 * KIB, cc.maxChunkBytes(1));
        assertEquals(2, policy.statistics("c").size());
        assertThrows(IllegalArgumentException.class,
                () -> session(policy, "x", paths, Map.of("cc-chunkprobe.initialChunkBytes", 1024)), "below min");
        assertThrows(IllegalArgumentException.class,
                () -> session(policy, "x", paths, Map.of("cc-chunkprobe.window", 0)));
    }

    @Test
    void aPathWhoseChunkOverflowedKeepsWindowAfterLossOutstanding() {
        ChunkProbeSession cc = session(new ChunkProbePolicy(), "c", new FakePaths(2),
                Map.of("cc-chunkprobe.window", 2));
        assertEquals(2, cc.maxOutstandingChunks(0));
        assertEquals(2, cc.maxOutstandingChunks(1));
        assertEquals(2, cc.maxOutstandingChunks(7), "a path the session does not know yet gets the window");
        cc.onChunkComplete(0, 64 * KIB, 1000, ChunkOutcome.SUCCESS);
        cc.onChunkComplete(0, 64 * KIB, 0, ChunkOutcome.FLUSHED);
        assertEquals(2, cc.maxOutstandingChunks(0), "a flushed chunk says nothing about bursts");
        cc.onChunkComplete(0, 128 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(1, cc.maxOutstandingChunks(0), "after an overflow one chunk at a time (windowAfterLoss 1)");
        assertEquals(2, cc.maxOutstandingChunks(1), "per path");
        new LossyPath(0, 100_000 * KIB).run(cc, 100);
        assertEquals(1, cc.maxOutstandingChunks(0), "successes afterwards do not widen it again");

        ChunkProbeSession three = session(new ChunkProbePolicy(), "d", new FakePaths(1),
                Map.of("cc-chunkprobe.windowAfterLoss", 3));
        assertEquals(1, three.maxOutstandingChunks(0));
        three.onChunkComplete(0, 64 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(3, three.maxOutstandingChunks(0));
        assertThrows(IllegalArgumentException.class, () -> session(new ChunkProbePolicy(), "x", new FakePaths(1),
                Map.of("cc-chunkprobe.windowAfterLoss", 0)));
    }
}
