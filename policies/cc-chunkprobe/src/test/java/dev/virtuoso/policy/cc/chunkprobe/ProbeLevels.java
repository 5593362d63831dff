package dev.virtuoso.policy.cc.chunkprobe;

import java.util.HashMap;
import java.util.Map;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.PolicyContext;

/** Sessions with short levels (4 chunks, one in flight, from 64 KiB) and levels completed at a given rate. */
final class ProbeLevels {
    private ProbeLevels() {
    }

    /** @param props overrides of the short-level settings @return a one-path session */
    static ChunkProbeSession session(Map<String, Object> props) {
        Map<String, Object> all = new HashMap<>(Map.of("cc-chunkprobe.window", 1, "cc-chunkprobe.initialChunkBytes",
                65536, "cc-chunkprobe.levelChunks", 4, "cc-chunkprobe.levelBytes", 1));
        all.putAll(props);
        return (ChunkProbeSession) new ChunkProbePolicy().newSession(new PolicyContext("c", all), new FakePaths(1));
    }

    /** Completes a level (4 chunks) of the current size at {@code bytesPerMicro}. */
    static void level(ChunkProbeSession cc, double bytesPerMicro) {
        for (int i = 0; i < 4; i++) {
            long size = cc.maxChunkBytes(0);
            cc.onChunkComplete(0, size, (long) (size / bytesPerMicro * 1000), ChunkOutcome.SUCCESS);
        }
    }
}
