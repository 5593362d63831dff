package dev.virtuoso.policy.cc.chunkprobe;

import static dev.virtuoso.policy.cc.chunkprobe.ProbeLevels.level;
import static dev.virtuoso.policy.cc.chunkprobe.ProbeLevels.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@code collapsePercent}: a proven size whose levels fall far below the rate that proved it (two
 * in a row) is halved, as a RETRY_EXC_ERR at it would: on shallow buffers with retries, the testbed's
 * Table 2 showed a size that completed at 94 Mbit/s once fall to 50-57 Mbit/s for good after one
 * larger size overflowed.
 */
class ChunkProbeCollapseTest {
    private static final long KIB = 1024;

    /** 128 KiB proven at 10.6, then 256 KiB overflows: back to 128 KiB, LINEAR. */
    private static ChunkProbeSession provenThenOverflowed(Map<String, Object> props) {
        ChunkProbeSession cc = session(props);
        level(cc, 10);
        level(cc, 10.6);
        level(cc, 5);
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));
        return cc;
    }

    @Test
    void twoLevelsFarBelowTheProvingRateHalveTheProvenSize() {
        ChunkProbeSession cc = provenThenOverflowed(Map.of());
        level(cc, 7.0); // 34% below 10.6: the first slow level, and the reference of the linear step
        assertEquals(160 * KIB, cc.maxChunkBytes(0));
        level(cc, 6.0); // the step is slower: back, threshold found (a probe level is not counted)
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
        level(cc, 7.0); // the second slow level at the proven size: it is not safe any more
        assertEquals(64 * KIB, cc.maxChunkBytes(0));
        assertEquals(64 * KIB, cc.statistics().get(0).safeChunkBytes());
        assertEquals(ChunkProbeSession.LINEAR, cc.phase(0));
        assertEquals(0, cc.statistics().get(0).losses(), "no WR failed");
    }

    @Test
    void aLevelBackNearTheProvingRateResetsTheCount() {
        ChunkProbeSession cc = provenThenOverflowed(Map.of());
        level(cc, 7.0); // slow (1)
        level(cc, 6.0); // the linear step fails: STEADY at 128 KiB
        level(cc, 8.0); // within 25% of 10.6: the count starts over
        level(cc, 7.0); // slow (1 again)
        assertEquals(128 * KIB, cc.maxChunkBytes(0));
        assertEquals(ChunkProbeSession.STEADY, cc.phase(0));
        level(cc, 7.0); // slow (2)
        assertEquals(64 * KIB, cc.maxChunkBytes(0));
    }

    @Test
    void offAtOneHundredAndBounded() {
        ChunkProbeSession cc = provenThenOverflowed(Map.of("cc-chunkprobe.collapsePercent", 100));
        level(cc, 7.0);
        level(cc, 6.0);
        level(cc, 1.0);
        level(cc, 1.0);
        assertEquals(128 * KIB, cc.maxChunkBytes(0), "never halved");
        assertThrows(IllegalArgumentException.class, () -> session(Map.of("cc-chunkprobe.collapsePercent", 101)));
        assertThrows(IllegalArgumentException.class, () -> session(Map.of("cc-chunkprobe.collapsePercent", -1)));
        assertEquals(25, ChunkProbeSettings.DEFAULTS.collapsePercent());
    }
}
