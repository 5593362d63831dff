package dev.virtuoso.policy.cc.fixed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.annotation.Annotation;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.PolicyContext;

class FixedChunkPolicyTest {

    static FixedChunkConfig config(long chunk, int window) {
        return config(chunk, window, 0);
    }

    static FixedChunkConfig config(long chunk, int window, long pacing) {
        return new FixedChunkConfig() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return FixedChunkConfig.class;
            }

            @Override
            public long chunkBytes() {
                return chunk;
            }

            @Override
            public int window() {
                return window;
            }

            @Override
            public long pacingBitsPerSecond() {
                return pacing;
            }
        };
    }

    @Test
    void defaultsAreOneMebibyteAndFourOutstanding() {
        FixedChunkPolicy p = new FixedChunkPolicy();
        CongestionAvoidanceSession s = p.newSession(new PolicyContext("c", Map.of()), new FakePaths(2));
        assertEquals(1 << 20, s.maxChunkBytes(0));
        assertEquals(4, s.maxOutstandingChunks(1));
        assertEquals(0, s.pacingBitsPerSecond(1), "not paced");
        s.onChunkComplete(0, 1 << 20, 1000, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(1 << 20, s.maxChunkBytes(0), "fixed: losses change nothing");
    }

    @Test
    void configAdminDefaultsAndConnectionPropertiesApply() {
        FixedChunkPolicy p = new FixedChunkPolicy();
        p.configure(config(256 * 1024, 2));
        CongestionAvoidanceSession s = p.newSession(new PolicyContext("c", Map.of()), new FakePaths(1));
        assertEquals(256 * 1024, s.maxChunkBytes(0));
        assertEquals(2, s.maxOutstandingChunks(0));
        s = p.newSession(new PolicyContext("c", Map.of("cc-fixed.chunkBytes", "65536", "cc-fixed.window", 8)), new FakePaths(1));
        assertEquals(65536, s.maxChunkBytes(0));
        assertEquals(8, s.maxOutstandingChunks(0));
        assertThrows(IllegalArgumentException.class,
                () -> p.newSession(new PolicyContext("c", Map.of("cc-fixed.chunkBytes", 0)), new FakePaths(1)));
        assertThrows(IllegalArgumentException.class, () -> p.configure(config(1024, 0)));
    }

    @Test
    void pacingComesFromConfigAdminOrTheConnection() {
        FixedChunkPolicy p = new FixedChunkPolicy();
        p.configure(config(1 << 20, 4, 90_000_000));
        CongestionAvoidanceSession s = p.newSession(new PolicyContext("c", Map.of()), new FakePaths(2));
        assertEquals(90_000_000, s.pacingBitsPerSecond(0));
        assertEquals(90_000_000, s.pacingBitsPerSecond(1), "every path");
        s = p.newSession(new PolicyContext("c", Map.of("cc-fixed.pacingBitsPerSecond", "40000000")), new FakePaths(1));
        assertEquals(40_000_000, s.pacingBitsPerSecond(0));
        assertThrows(IllegalArgumentException.class, () -> p.newSession(
                new PolicyContext("c", Map.of("cc-fixed.pacingBitsPerSecond", -1)), new FakePaths(1)));
        assertThrows(IllegalArgumentException.class, () -> p.configure(config(1024, 1, -5)));
    }
}
