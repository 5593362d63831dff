package dev.virtuoso.policy.lb.roundrobin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PolicyContext;

class RoundRobinPolicyTest {

    /** Places a whole message the way the core does: chunk = min(lb bound, cc bound, remaining). */
    private static long[] placeMessage(LoadBalancerSession s, FakePaths paths, long id, long total, long ccChunk) {
        long[] perPath = new long[paths.pathCount()];
        ChunkPlacement out = new ChunkPlacement();
        s.onMessageStart(id, total);
        long remaining = total;
        while (remaining > 0) {
            assertTrue(s.place(id, remaining, out));
            long chunk = Math.min(Math.min(out.maxBytes(), ccChunk), remaining);
            perPath[out.path()] += chunk;
            paths.post(out.path(), chunk);
            remaining -= chunk;
        }
        return perPath;
    }

    @Test
    void splitsEquallyWhateverTheCapacity() {
        FakePaths paths = new FakePaths(4);
        paths.probed = new double[] {25e6, 12.5e6, 6.25e6, 3.125e6};
        LoadBalancerSession s = new RoundRobinPolicy().newSession(new PolicyContext("c", Map.of()), paths);
        assertArrayEquals(new long[] {4 << 20, 4 << 20, 4 << 20, 4 << 20}, placeMessage(s, paths, 1, 16 << 20, 1 << 20));
        // message smaller than one cc chunk: still one share per path
        assertArrayEquals(new long[] {1000, 1000, 1000, 1000}, placeMessage(s, paths, 2, 4000, 1 << 20));
    }

    @Test
    void skipsUnusablePathsAndWaitsWhenNoneIsLeft() {
        FakePaths paths = new FakePaths(3);
        LoadBalancerSession s = new RoundRobinPolicy().newSession(new PolicyContext("c", Map.of()), paths);
        paths.usable[1] = false;
        assertArrayEquals(new long[] {3 << 20, 0, 3 << 20}, placeMessage(s, paths, 1, 6 << 20, 1 << 20));
        paths.usable[0] = false;
        paths.usable[2] = false;
        s.onPathsChanged();
        assertFalse(s.place(2, 100, new ChunkPlacement()));
    }

    @Test
    void takesOverMidMessage() {
        FakePaths paths = new FakePaths(2);
        LoadBalancerSession s = new RoundRobinPolicy().newSession(new PolicyContext("c", Map.of()), paths);
        ChunkPlacement out = new ChunkPlacement();
        assertTrue(s.place(7, 3000, out), "no onMessageStart seen (hot swap)");
        assertEquals(1500, out.maxBytes());
        paths.resize(3);
        s.onPathsChanged();
        s.onMessageStart(8, 3000);
        assertTrue(s.place(8, 3000, out));
        assertEquals(1000, out.maxBytes(), "a new path takes its share");
    }
}
