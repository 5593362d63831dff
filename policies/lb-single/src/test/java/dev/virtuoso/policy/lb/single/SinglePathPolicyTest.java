package dev.virtuoso.policy.lb.single;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PolicyContext;

class SinglePathPolicyTest {

    @Test
    void everyChunkGoesToTheLowestUsablePath() {
        FakePaths paths = new FakePaths(3);
        SinglePathPolicy policy = new SinglePathPolicy();
        assertEquals("lb-single", policy.name());
        LoadBalancerSession s = policy.newSession(new PolicyContext("c", Map.of()), paths);
        ChunkPlacement out = new ChunkPlacement();
        s.onMessageStart(1, 10 << 20);
        for (int i = 0; i < 5; i++) {
            assertTrue(s.place(1, 10 << 20, out));
            assertEquals(0, out.path());
            paths.post(0, 1 << 20);
        }
        paths.usable[0] = false;
        s.onPathsChanged();
        assertTrue(s.place(1, 5 << 20, out));
        assertEquals(1, out.path(), "moves on when its path fails");
        paths.usable[1] = false;
        paths.usable[2] = false;
        assertFalse(s.place(1, 5 << 20, out), "nothing usable: wait");
        paths.usable[0] = true;
        assertTrue(s.place(1, 5 << 20, out));
        assertEquals(0, out.path(), "back to the lowest when it recovers");
        s.close();
    }
}
