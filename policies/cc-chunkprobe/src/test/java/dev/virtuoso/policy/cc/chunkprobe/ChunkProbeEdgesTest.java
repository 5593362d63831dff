package dev.virtuoso.policy.cc.chunkprobe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.cc.chunkprobe.api.ChunkSizeStats;
import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.PolicyContext;

/** Settings bounds, paths beyond the table, published statistics and the command's table. */
class ChunkProbeEdgesTest {
    private static final long INITIAL = 65536;

    private static ChunkProbeSession session(ChunkProbePolicy policy, String id, FakePaths paths) {
        return (ChunkProbeSession) policy.newSession(new PolicyContext(id, ChunkProbePolicyTest.ONE_CHUNK_LEVELS),
                paths);
    }

    @Test
    void settingsBoundsAreInclusiveAndEachBelowIsRejected() {
        assertEquals(1, new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 1, 5, 1, 0, 25, 0).maxChunkBytes());
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 0, 1, 1, 1, 0, 1, 1, 5, 1, 0, 25, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 2, 2, 1, 1, 0, 1, 1, 5, 1, 0, 25, 0),
                "initial below the minimum");
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(2, 1, 1, 1, 1, 0, 1, 1, 5, 1, 0, 25, 0),
                "maximum below the initial");
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 0, 1, 0, 1, 1, 5, 1, 0, 25, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 0, 0, 1, 1, 5, 1, 0, 25, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 1, -1, 1, 1, 5, 1, 0, 25, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 0, 1, 5, 1, 0, 25, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 0, 5, 1, 0, 25, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 1, -1, 1, 0, 25, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 1, 101, 1, 0, 25, 0));
        assertEquals(100, new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 1, 100, 1, 0, 25, 0).slowdownPercent());
        assertEquals(100, new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 1, 5, 1, 0, 25, 100).reprobeJitterPercent());
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 1, 5, 1, 0, 25, 101));
        assertThrows(IllegalArgumentException.class, () -> new ChunkProbeSettings(1, 1, 1, 1, 1, 0, 1, 1, 5, 1, 0, 25, -1));
    }

    @Test
    void windowPropertyMustFitAnInt() {
        ChunkProbeSettings d = new ChunkProbeSettings(INITIAL, 4096, 64L << 20, 65536, 2, 0, 1, 1, 5, 1, 0, 25, 0);
        assertEquals(Integer.MAX_VALUE,
                d.with(new PolicyContext("c", Map.of("cc-chunkprobe.window", (long) Integer.MAX_VALUE))).window());
        assertThrows(IllegalArgumentException.class,
                () -> d.with(new PolicyContext("c", Map.of("cc-chunkprobe.window", Integer.MAX_VALUE + 1L))));
    }

    @Test
    void pathsBeyondTheViewGetTheInitialSizeAndTheirCompletionsAreIgnored() {
        FakePaths paths = new FakePaths(2);
        ChunkProbeSession s = session(new ChunkProbePolicy(), "c", paths);
        assertEquals(INITIAL, s.maxChunkBytes(2));
        s.onChunkComplete(2, INITIAL, 1000, ChunkOutcome.SUCCESS);
        s.onChunkComplete(-1, INITIAL, 1000, ChunkOutcome.SUCCESS);
        assertEquals(2, s.statistics().size());
        assertEquals(0, s.statistics().get(0).chunksCompleted() + s.statistics().get(1).chunksCompleted());
    }

    @Test
    void statisticsArePublishedPerPathFromTheStart() {
        FakePaths paths = new FakePaths(2);
        ChunkProbeSession s = session(new ChunkProbePolicy(), "c", paths);
        List<ChunkSizeStats> st = s.statistics();
        assertEquals(2, st.size());
        assertEquals(INITIAL, st.get(1).currentChunkBytes());

        s.onChunkComplete(1, INITIAL, 1000, ChunkOutcome.SUCCESS);
        s.onChunkComplete(1, 1000, 1000, ChunkOutcome.SUCCESS);
        s.onChunkComplete(1, 2 * INITIAL, 1000, ChunkOutcome.RETRY_EXCEEDED);
        ChunkSizeStats p1 = s.statistics().get(1);
        assertEquals(1, p1.path());
        assertEquals(2, p1.chunksCompleted());
        assertEquals((INITIAL + 1000) / 2, p1.averageCompletedChunkBytes());
        assertEquals(INITIAL, p1.maxCompletedChunkBytes());
        assertEquals(INITIAL, p1.safeChunkBytes());
        assertEquals(INITIAL, p1.currentChunkBytes(), "the loss falls back to the safe size");
        assertEquals(1, p1.losses());
        assertEquals("LINEAR", p1.phase());
        ChunkSizeStats p0 = s.statistics().get(0);
        assertEquals(0, p0.chunksCompleted());
        assertEquals(0, p0.averageCompletedChunkBytes());
        assertEquals(INITIAL, p0.currentChunkBytes());
    }

    @Test
    void addedPathsArePublishedWhenPathsChange() {
        FakePaths paths = new FakePaths(1);
        ChunkProbeSession s = session(new ChunkProbePolicy(), "c", paths);
        paths.resize(3);
        s.onPathsChanged();
        List<ChunkSizeStats> st = s.statistics();
        assertEquals(3, st.size());
        assertEquals(INITIAL, st.get(2).currentChunkBytes());
        assertEquals("BINARY", st.get(2).phase());
    }

    @Test
    void theCommandPrintsEachConnectionWithTheMeanSafeSize() {
        ChunkProbePolicy policy = new ChunkProbePolicy();
        assertEquals("cc-chunkprobe", policy.name());
        assertEquals("no connection uses cc-chunkprobe", policy.chunksizesText());
        FakePaths paths = new FakePaths(2);
        ChunkProbeSession s = session(policy, "conn-1", paths);
        s.onChunkComplete(0, INITIAL, 1000, ChunkOutcome.SUCCESS);
        s.onChunkComplete(1, INITIAL, 1000, ChunkOutcome.SUCCESS);
        s.onChunkComplete(1, 2 * INITIAL, 1000, ChunkOutcome.SUCCESS);
        String table = policy.chunksizesText();
        assertTrue(table.startsWith("connection conn-1\n"), table);
        assertTrue(table.contains("paths 2: safe sizes sum " + 3 * INITIAL + " bytes, mean " + 3 * INITIAL / 2
                + " bytes per path"), table);
        policy.deactivate();
        assertEquals("no connection uses cc-chunkprobe", policy.chunksizesText());
    }
}
