package dev.virtuoso.policy.cc.chunkprobe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.PolicyContext;

/** Levels, the slowdown signal and re-probing (the probe adapts both ways). */
class ChunkProbeAdaptationTest {
    private static final long KIB = 1024;

    /**
     * A session with one chunk in flight from 64 KiB (the paper's start), sizes kept unless slower
     * (no gain asked: ChunkProbeGainTest covers that rule) and the other defaults.
     */
    private static ChunkProbeSession session(Map<String, Object> props) {
        Map<String, Object> all = new java.util.HashMap<>(Map.of("cc-chunkprobe.window", 1,
                "cc-chunkprobe.initialChunkBytes", 65536, "cc-chunkprobe.gainPercent", 0));
        all.putAll(props);
        return (ChunkProbeSession) new ChunkProbePolicy().newSession(new PolicyContext("c", all), new FakePaths(1));
    }

    @Test
    void byDefaultTwoChunksFrom16KibUntilAPathOverflows() {
        ChunkProbeSession cc = (ChunkProbeSession) new ChunkProbePolicy().newSession(
                new PolicyContext("d", Map.of()), new FakePaths(2));
        assertEquals(16 * KIB, cc.maxChunkBytes(0));
        assertEquals(2, cc.maxOutstandingChunks(0));
        cc.onChunkComplete(1, 16 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(1, cc.maxOutstandingChunks(1), "an overflowed path: one chunk at a time");
        assertEquals(2, cc.maxOutstandingChunks(0));
    }

    /** Completes {@code n} chunks of the current size at {@code bytesPerMicro} (latency from the rate). */
    private static void complete(ChunkProbeSession cc, int n, double bytesPerMicro) {
        for (int i = 0; i < n; i++) {
            long size = cc.maxChunkBytes(0);
            cc.onChunkComplete(0, size, (long) (size / bytesPerMicro * 1000), ChunkOutcome.SUCCESS);
        }
    }

    @Test
    void aSizeGrowsOnlyAfterAWholeLevel() {
        ChunkProbeSession cc = session(Map.of());
        assertEquals(1, cc.maxOutstandingChunks(0));
        complete(cc, 15, 10);
        assertEquals(64 * KIB, cc.maxChunkBytes(0), "16 chunks and 1 MiB per level by default");
        complete(cc, 1, 10);
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        complete(cc, 7, 10);
        assertEquals(128 * KIB, cc.maxChunkBytes(0), "8 x 128 KiB = 1 MiB but only 8 chunks");
        complete(cc, 9, 10);
        assertEquals(256 * KIB, cc.maxChunkBytes(0));
    }

    @Test
    void aSlowerLevelBacksOffLikeALossWithoutFailingAWr() {
        ChunkProbeSession cc = session(Map.of("cc-chunkprobe.levelChunks", 4, "cc-chunkprobe.levelBytes", 1));
        complete(cc, 4, 10); // 64 KiB
        complete(cc, 4, 10.2); // 128 KiB, a little faster
        assertEquals(256 * KIB, cc.maxChunkBytes(0));
        complete(cc, 4, 9.8); // within 5% of the best: grows on
        assertEquals(512 * KIB, cc.maxChunkBytes(0));
        complete(cc, 4, 9.0); // 12% slower than the best: back to 256 KiB, linear
        assertEquals(256 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));
        complete(cc, 4, 9.0); // the reference level at the proven size
        assertEquals(320 * KIB, cc.maxChunkBytes(0), "one step of a quarter of 256 KiB, at most 64 KiB");
        complete(cc, 4, 8.0); // slower again: threshold found
        assertEquals(256 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
        assertEquals(0, cc.statistics().get(0).losses(), "no WR failed");
        assertEquals(256 * KIB, cc.statistics().get(0).safeChunkBytes());
    }

    @Test
    void reprobesGrowBackOnABetterPathAndBackOffOnAnUnchangedOne() {
        ChunkProbeSession cc = session(Map.of("cc-chunkprobe.levelChunks", 1, "cc-chunkprobe.levelBytes", 1,
                "cc-chunkprobe.reprobeAfterChunks", 10, "cc-chunkprobe.maxChunkBytes", 4096 * KIB,
                "cc-chunkprobe.reprobeJitterPercent", 0));
        complete(cc, 1, 10); // 64 -> 128
        cc.onChunkComplete(0, 128 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED); // back to 64, linear
        complete(cc, 1, 10); // 64 -> 80
        cc.onChunkComplete(0, 80 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED); // steady at 64
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
        // unchanged path: the try at 80 KiB fails after 10, then 20, then 40 successes
        int[] waits = {10, 20, 40};
        for (int w : waits) {
            complete(cc, w - 1, 10);
            assertEquals(64 * KIB, cc.maxChunkBytes(0), "no try before " + w + " successes");
            complete(cc, 1, 10);
            assertEquals(80 * KIB, cc.maxChunkBytes(0), "a step up after " + w);
            cc.onChunkComplete(0, 80 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED);
            assertEquals(64 * KIB, cc.maxChunkBytes(0));
            assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
        }
        // the path got better: the next try succeeds and the size grows back by doubling
        complete(cc, 80, 10);
        assertEquals(80 * KIB, cc.maxChunkBytes(0));
        complete(cc, 1, 10);
        assertEquals(ChunkProbeSession.BINARY, cc.phase(0));
        assertEquals(160 * KIB, cc.maxChunkBytes(0));
        complete(cc, 5, 10);
        assertEquals(4096 * KIB, cc.maxChunkBytes(0), "up to the maximum");
        // and turns lossy again: back to the proven 2560 KiB, then a loss there halves it
        cc.onChunkComplete(0, 4096 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(2560 * KIB, cc.maxChunkBytes(0));
        cc.onChunkComplete(0, 2560 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(1280 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));
    }

    /**
     * Eight paths that started together and run alike reach STEADY at the same chunk count; each
     * waits reprobeAfterChunks (100) plus a random 0..50% before its re-probe, so they do not all
     * step up (and overflow, and go through a QP repair) at once. A failed re-probe doubles the
     * wait, jittered the same way.
     */
    @Test
    void pathsThatStartedTogetherReprobeAtDifferentTimes() {
        int paths = 8;
        ChunkProbeSession cc = (ChunkProbeSession) new ChunkProbePolicy().newSession(new PolicyContext("j",
                Map.of("cc-chunkprobe.window", 1, "cc-chunkprobe.initialChunkBytes", 65536, "cc-chunkprobe.levelChunks",
                        1, "cc-chunkprobe.levelBytes", 1, "cc-chunkprobe.reprobeAfterChunks", 100)), new FakePaths(paths));
        long[] firstTry = new long[paths];
        long[] secondTry = new long[paths];
        for (int p = 0; p < paths; p++) {
            cc.onChunkComplete(p, 64 * KIB, 1000, ChunkOutcome.SUCCESS); // 64 -> 128
            cc.onChunkComplete(p, 128 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED); // back to 64, linear
            cc.onChunkComplete(p, 64 * KIB, 1000, ChunkOutcome.SUCCESS); // 64 -> 80
            cc.onChunkComplete(p, 80 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED); // steady at 64
            assertEquals(ChunkProbeSession.STEADY, cc.phase(p));
            firstTry[p] = successesUntilStepUp(cc, p);
            cc.onChunkComplete(p, 80 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED); // the try fails
            secondTry[p] = successesUntilStepUp(cc, p);
        }
        java.util.Set<Long> distinct = new java.util.HashSet<>();
        for (int p = 0; p < paths; p++) {
            assertTrue(firstTry[p] >= 100 && firstTry[p] <= 150, "within 100..150: " + firstTry[p]);
            assertTrue(secondTry[p] >= 200 && secondTry[p] <= 300, "doubled, within 200..300: " + secondTry[p]);
            distinct.add(firstTry[p]);
        }
        assertTrue(distinct.size() >= paths / 2, "spread out: " + java.util.Arrays.toString(firstTry));
    }

    /** Completes chunks of path p's current size until it steps up; returns how many it took. */
    private static long successesUntilStepUp(ChunkProbeSession cc, int p) {
        long size = cc.maxChunkBytes(p);
        for (long n = 1; n <= 10_000; n++) {
            cc.onChunkComplete(p, size, 1000, ChunkOutcome.SUCCESS);
            if (cc.maxChunkBytes(p) > size) {
                return n;
            }
        }
        throw new AssertionError("no re-probe within 10,000 chunks");
    }

    /**
     * With two chunks outstanding a chunk's latency includes waiting behind the one before it; the
     * level's rate is measured over the time the path was busy (from the later of its post and the
     * previous completion), so a larger size whose completions come further apart is seen slower
     * even though its latencies, per byte, look better.
     */
    @Test
    void overlappingChunksAreMeasuredByTheTimeThePathWasBusy() {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(-5_000_000_000L);
        ChunkProbeSession cc = (ChunkProbeSession) new ChunkProbePolicy(now::get).newSession(
                new PolicyContext("c", Map.of("cc-chunkprobe.window", 2, "cc-chunkprobe.initialChunkBytes", 65536,
                        "cc-chunkprobe.gainPercent", 0)), new FakePaths(1));
        assertEquals(2, cc.maxOutstandingChunks(0));
        for (int i = 0; i < 16; i++) { // 64 KiB every 1 ms, each 2 ms after its post: 64 KiB per ms busy
            now.addAndGet(1_000_000);
            cc.onChunkComplete(0, 64 * KIB, 2_000_000, ChunkOutcome.SUCCESS);
        }
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        for (int i = 0; i < 16; i++) { // 128 KiB every 2.4 ms (the first level: 1 MiB in 17 ms busy), 2.6 ms after its post
            now.addAndGet(2_400_000);
            cc.onChunkComplete(0, 128 * KIB, 2_600_000, ChunkOutcome.SUCCESS);
        }
        assertEquals(64 * KIB, cc.maxChunkBytes(0),
                "busy time says 11% slower (latency alone would say 54% faster): back to the proven size");
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));

        ChunkProbeSession gaps = (ChunkProbeSession) new ChunkProbePolicy(now::get).newSession(
                new PolicyContext("g", Map.of("cc-chunkprobe.window", 2, "cc-chunkprobe.initialChunkBytes", 65536,
                        "cc-chunkprobe.gainPercent", 0)), new FakePaths(1));
        for (int i = 0; i < 16; i++) { // 1 ms chunks with idle gaps of 9 ms between them: only busy time counts
            now.addAndGet(10_000_000);
            gaps.onChunkComplete(0, 64 * KIB, 1_000_000, ChunkOutcome.SUCCESS);
        }
        for (int i = 0; i < 16; i++) { // 128 KiB in 2.1 ms each, back to back: 5% slower per busy ms, no loss
            now.addAndGet(2_100_000);
            gaps.onChunkComplete(0, 128 * KIB, 2_100_000, ChunkOutcome.SUCCESS);
        }
        assertEquals(256 * KIB, gaps.maxChunkBytes(0), "the idle gaps of the first level were not charged to it");
    }
}
