package dev.virtuoso.policy.cc.fixed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.PolicyContext;

class FixedChunkLimitsTest {
    private final FixedChunkPolicy policy = new FixedChunkPolicy();

    @Test
    void oneByteAndOneChunkAreTheSmallestLimits() {
        var s = policy.newSession(new PolicyContext("c", Map.of("cc-fixed.chunkBytes", 1, "cc-fixed.window", 1)),
                new FakePaths(1));
        assertEquals(1, s.maxChunkBytes(0));
        assertEquals(1, s.maxOutstandingChunks(0));
    }

    @Test
    void theWindowMustFitAnInt() {
        var s = policy.newSession(new PolicyContext("c", Map.of("cc-fixed.window", (long) Integer.MAX_VALUE)),
                new FakePaths(1));
        assertEquals(Integer.MAX_VALUE, s.maxOutstandingChunks(0));
        assertThrows(IllegalArgumentException.class, () -> policy.newSession(
                new PolicyContext("c", Map.of("cc-fixed.window", Integer.MAX_VALUE + 1L)), new FakePaths(1)));
    }

    @Test
    void policyIsNamedForItsProperties() {
        assertEquals("cc-fixed", policy.name());
    }
}
