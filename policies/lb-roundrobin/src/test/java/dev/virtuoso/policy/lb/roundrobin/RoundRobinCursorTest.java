package dev.virtuoso.policy.lb.roundrobin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PolicyContext;

class RoundRobinCursorTest {
    private final ChunkPlacement out = new ChunkPlacement();

    private static LoadBalancerSession session(FakePaths paths) {
        return new RoundRobinPolicy().newSession(new PolicyContext("c", Map.of()), paths);
    }

    @Test
    void theShareIsFixedAtMessageStart() {
        FakePaths paths = new FakePaths(4);
        LoadBalancerSession s = session(paths);
        s.onMessageStart(1, 4000);
        assertTrue(s.place(1, 500, out));
        assertEquals(1000, out.maxBytes(), "a quarter of the message, not of what is left");
    }

    @Test
    void theCursorSurvivesAChangeThatKeepsThePaths() {
        FakePaths paths = new FakePaths(3);
        LoadBalancerSession s = session(paths);
        assertTrue(s.place(1, 3000, out));
        assertEquals(0, out.path());
        s.onPathsChanged();
        assertTrue(s.place(1, 2000, out));
        assertEquals(1, out.path());
    }

    @Test
    void theCursorRestartsWhenItsPathIsGone() {
        FakePaths paths = new FakePaths(4);
        LoadBalancerSession s = session(paths);
        for (int i = 0; i < 3; i++) {
            assertTrue(s.place(1, 4000, out));
        }
        assertEquals(2, out.path());
        paths.usable = new boolean[] {true, true}; // the view now has two paths (FakePaths only grows)
        s.onPathsChanged();
        assertTrue(s.place(1, 4000, out));
        assertEquals(0, out.path(), "slot 3 is gone: start again at slot 0");
    }

    @Test
    void policyIsNamedForItsProperties() {
        assertEquals("lb-roundrobin", new RoundRobinPolicy().name());
    }
}
