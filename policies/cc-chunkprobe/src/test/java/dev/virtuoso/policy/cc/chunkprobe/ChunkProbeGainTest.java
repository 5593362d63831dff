package dev.virtuoso.policy.cc.chunkprobe;

import static dev.virtuoso.policy.cc.chunkprobe.ProbeLevels.level;
import static dev.virtuoso.policy.cc.chunkprobe.ProbeLevels.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.policy.ChunkOutcome;

/**
 * {@code gainPercent}: while retries hide every loss of a path, a larger size must be measurably
 * faster to be kept (go-back-N resends what is in flight, so a size that is merely not slower
 * costs more per loss); once a chunk of the path ended in RETRY_EXC_ERR, its losses are visible and
 * the paper's rule (keep unless slower) applies.
 */
class ChunkProbeGainTest {
    private static final long KIB = 1024;

    @Test
    void aLargerSizeNoFasterThanTheSmallerGoesBackWhileLossesAreHidden() {
        ChunkProbeSession cc = session(Map.of());
        assertEquals(5, ChunkProbeSettings.DEFAULTS.gainPercent(), "the default asks 5%");
        level(cc, 10); // 64 KiB measured
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        level(cc, 10.6); // 6% faster: pays, kept
        assertEquals(256 * KIB, cc.maxChunkBytes(0));
        assertEquals(128 * KIB, cc.statistics().get(0).safeChunkBytes());
        level(cc, 11.0); // under 4% faster than 128 KiB's best: not worth its damage, back
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));
        assertEquals(128 * KIB, cc.statistics().get(0).safeChunkBytes(), "256 KiB proved nothing");
        assertEquals(0, cc.statistics().get(0).losses(), "no WR failed");
        level(cc, 11.0); // the reference at the proven size
        assertEquals(160 * KIB, cc.maxChunkBytes(0));
        level(cc, 11.0); // a linear step at the same rate: threshold found
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
    }

    @Test
    void theGainIsAKnobAndZeroTurnsItOff() {
        ChunkProbeSession none = session(Map.of("cc-chunkprobe.gainPercent", 0));
        level(none, 10);
        level(none, 9.6);
        assertEquals(256 * KIB, none.maxChunkBytes(0), "4% slower is within slowdownPercent: kept");
        ChunkProbeSession big = session(Map.of("cc-chunkprobe.gainPercent", 20));
        level(big, 10);
        level(big, 11.9); // 19% faster: not enough
        assertEquals(64 * KIB, big.maxChunkBytes(0));
        ChunkProbeSession justEnough = session(Map.of("cc-chunkprobe.gainPercent", 20));
        level(justEnough, 10);
        level(justEnough, 12.1);
        assertEquals(256 * KIB, justEnough.maxChunkBytes(0));
        assertThrows(IllegalArgumentException.class, () -> session(Map.of("cc-chunkprobe.gainPercent", -1)));
    }

    @Test
    void afterARetryExceededTheLossesAreVisibleAndAnEqualRateGrows() {
        ChunkProbeSession cc = session(Map.of());
        level(cc, 10); // 64 KiB proven
        cc.onChunkComplete(0, 128 * KIB, 1000, ChunkOutcome.RETRY_EXCEEDED); // back to 64 KiB, linear
        assertEquals(64 * KIB, cc.maxChunkBytes(0));
        level(cc, 10); // the reference
        assertEquals(80 * KIB, cc.maxChunkBytes(0));
        level(cc, 10); // same rate: the paper's rule keeps it (a quarter of the proven 80 KiB up)
        assertEquals(100 * KIB, cc.maxChunkBytes(0));
        level(cc, 9.0); // 10% slower: still a loss
        assertEquals(80 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
    }

    /** Reaches STEADY at 128 KiB through failed gains (no WR fails), then runs STEADY levels at the rates. */
    private static ChunkProbeSession steadyAfter(double... steadyRates) {
        ChunkProbeSession cc = session(Map.of("cc-chunkprobe.reprobeAfterChunks", 4 * steadyRates.length + 4,
                "cc-chunkprobe.reprobeJitterPercent", 0)); // exact waits
        level(cc, 10);
        level(cc, 10.6);
        level(cc, 11.0);
        level(cc, 11.0);
        level(cc, 11.0);
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
        for (double r : steadyRates) {
            level(cc, r);
        }
        for (int i = 0; i < 4; i++) { // three successes, then the fourth starts the re-probe
            cc.onChunkComplete(0, 128 * KIB, (long) (128 * KIB / 8.0 * 1000), ChunkOutcome.SUCCESS);
        }
        assertEquals(160 * KIB, cc.maxChunkBytes(0), "a re-probe one step up");
        return cc;
    }

    @Test
    void aReprobeIsMeasuredAgainstTheSmoothedSteadyRateNotTheLastLevel() {
        ChunkProbeSession unlucky = steadyAfter(10, 8); // reference 3/4 x 10 + 1/4 x 8 = 9.5
        level(unlucky, 8.8); // 10% faster than the last level, not 5% faster than 9.5
        assertEquals(128 * KIB, unlucky.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.STEADY, unlucky.phase(0));
        ChunkProbeSession better = steadyAfter(10, 8);
        level(better, 10.0); // 5.3% above 9.5: the path got better, doubling again
        assertEquals(ChunkProbeSession.BINARY, better.phase(0));
        assertEquals(320 * KIB, better.maxChunkBytes(0));
    }
}
