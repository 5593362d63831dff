package dev.virtuoso.policy.lb.proportional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PolicyContext;

class ProportionalPolicyTest {
    private static final double MBIT = 1e6 / 8;

    /** Without a minimum share unless the test sets one: these tests check equation 1 on small byte counts. */
    private static LoadBalancerSession session(FakePaths paths, Map<String, Object> props) {
        Map<String, Object> all = new java.util.HashMap<>(Map.of("lb-proportional.minShareBytes", 0));
        all.putAll(props);
        return new ProportionalPolicy().newSession(new PolicyContext("c", all), paths);
    }

    /** Places a message the way the core does; returns bytes per path, records the path order. */
    private static long[] placeMessage(LoadBalancerSession s, FakePaths paths, long id, long total, long ccChunk,
            List<Integer> order) {
        long[] perPath = new long[paths.pathCount()];
        ChunkPlacement out = new ChunkPlacement();
        s.onMessageStart(id, total);
        long remaining = total;
        while (remaining > 0) {
            assertTrue(s.place(id, remaining, out));
            long chunk = Math.min(Math.min(out.maxBytes(), ccChunk), remaining);
            perPath[out.path()] += chunk;
            order.add(out.path());
            paths.post(out.path(), chunk);
            remaining -= chunk;
        }
        return perPath;
    }

    /** The earlier messages were delivered: nothing in flight (a backlog changes the split, ProportionalAllocationTest). */
    private static void delivered(FakePaths paths) {
        java.util.Arrays.fill(paths.inFlightBytes, 0);
        java.util.Arrays.fill(paths.inFlightChunks, 0);
    }

    @Test
    void splitFollowsEquationOne() {
        FakePaths paths = new FakePaths(4);
        paths.probed = new double[] {200 * MBIT, 100 * MBIT, 50 * MBIT, 25 * MBIT};
        paths.estimated = new double[] {1, 1, 1, 1}; // probes take precedence
        LoadBalancerSession s = session(paths, Map.of());
        long total = 64L << 20;
        List<Integer> order = new ArrayList<>();
        long[] data = placeMessage(s, paths, 1, total, 1 << 20, order);
        assertEquals(total, data[0] + data[1] + data[2] + data[3]);
        double level = data[0] / paths.probed[0];
        for (int p = 1; p < 4; p++) {
            // data_i / cap_i equal for every path, up to rounding to whole bytes
            assertEquals(level, data[p] / paths.probed[p], 2 / paths.probed[3], "path " + p);
        }
        long rest = total - total * 4 / 15 - total * 2 / 15 - total / 15;
        assertArrayEquals(new long[] {rest, total * 4 / 15, total * 2 / 15, total / 15}, data,
                "8:4:2:1, the rounding remainder on the fastest path");
        assertTrue(rest - total * 8 / 15 < 4);
        // round-robin over the paths that still have allocation: 0,1,2,3,0,1,2,3,...
        assertEquals(List.of(0, 1, 2, 3, 0, 1, 2, 3), order.subList(0, 8));
    }

    @Test
    void singleChunkPerPathWhenTheShareFitsTheChunk() {
        FakePaths paths = new FakePaths(2);
        paths.probed = new double[] {3e6, 1e6};
        List<Integer> order = new ArrayList<>();
        long[] data = placeMessage(session(paths, Map.of()), paths, 1, 4000, 1 << 20, order);
        assertArrayEquals(new long[] {3000, 1000}, data);
        assertEquals(List.of(0, 1), order);
    }

    @Test
    void fallsBackToEstimatedRateThenEqualSplit() {
        FakePaths paths = new FakePaths(3);
        paths.estimated = new double[] {2e6, 1e6, 1e6};
        assertArrayEquals(new long[] {2000, 1000, 1000},
                placeMessage(session(paths, Map.of()), paths, 1, 4000, 1 << 20, new ArrayList<>()));
        FakePaths unknown = new FakePaths(4);
        assertArrayEquals(new long[] {1000, 1000, 1000, 1000},
                placeMessage(session(unknown, Map.of()), unknown, 1, 4000, 1 << 20, new ArrayList<>()));
        FakePaths mixed = new FakePaths(3);
        mixed.probed = new double[] {3e6, 1e6, 0};
        assertArrayEquals(new long[] {3000, 1000, 2000},
                placeMessage(session(mixed, Map.of()), mixed, 1, 6000, 1 << 20, new ArrayList<>()),
                "an unprobed path is given the mean of the known capacities");
    }

    @Test
    void slowPathsCanBeDropped() {
        FakePaths paths = new FakePaths(3);
        paths.probed = new double[] {100e6, 50e6, 10e6};
        long[] data = placeMessage(session(paths, Map.of("lb-proportional.minRelativeCapacityPercent", 25)), paths, 1,
                3000, 1 << 20, new ArrayList<>());
        assertArrayEquals(new long[] {2000, 1000, 0}, data);
        assertThrows(IllegalArgumentException.class,
                () -> session(paths, Map.of("lb-proportional.minRelativeCapacityPercent", 101)));
    }

    @Test
    void failedPathsAllocationMovesToTheOthers() {
        FakePaths paths = new FakePaths(2);
        paths.probed = new double[] {1e6, 1e6};
        LoadBalancerSession s = session(paths, Map.of());
        ChunkPlacement out = new ChunkPlacement();
        s.onMessageStart(1, 8000);
        long remaining = 8000;
        assertTrue(s.place(1, remaining, out));
        assertEquals(0, out.path());
        remaining -= 1000; // cc limited the chunk to 1000
        assertTrue(s.place(1, remaining, out));
        assertEquals(1, out.path());
        remaining -= 1000;
        paths.usable[1] = false;
        s.onPathsChanged();
        long onZero = 0;
        while (remaining > 0) {
            assertTrue(s.place(1, remaining, out));
            assertEquals(0, out.path());
            long chunk = Math.min(1000, Math.min(out.maxBytes(), remaining));
            onZero += chunk;
            remaining -= chunk;
        }
        assertEquals(6000, onZero, "path 1's 3000 remaining bytes went to path 0");
        paths.usable[0] = false;
        assertFalse(s.place(2, 10, out));
    }

    @Test
    void placeWithoutPostConsumesNothing() {
        FakePaths paths = new FakePaths(2);
        ProportionalSession s = (ProportionalSession) session(paths, Map.of());
        ChunkPlacement out = new ChunkPlacement();
        s.onMessageStart(1, 2000);
        assertTrue(s.place(1, 2000, out));
        assertTrue(s.place(1, 2000, out), "core did not post (window full), asks again");
        assertEquals(1000, s.allocated(0));
        assertEquals(1000, s.allocated(1));
        assertTrue(s.place(1, 1500, out));
        assertEquals(1000, s.allocated(0));
        assertEquals(500, s.allocated(1), "the previous placement (path 1) carried 500 bytes");
    }

    @Test
    void onceAPathCarriedDataItsMeasuredRateReplacesTheProbe() {
        FakePaths paths = new FakePaths(4);
        // the connect-time probe misread path 0 (a 200 Mbit/s link read as 100) and path 3 (25 as 50)
        paths.probed = new double[] {100 * MBIT, 100 * MBIT, 50 * MBIT, 50 * MBIT};
        paths.estimated = new double[] {200 * MBIT, 100 * MBIT, 50 * MBIT, 25 * MBIT};
        LoadBalancerSession s = session(paths, Map.of());
        long total = 30L << 20;
        long[] first = placeMessage(s, paths, 1, total, 1 << 20, new ArrayList<>());
        assertArrayEquals(new long[] {total / 3, total / 3, total / 6, total / 6}, first,
                "before any data completed, the probes set the split");
        for (int p = 0; p < 4; p++) {
            for (int k = 0; k < ProportionalSession.MEASURED_AFTER_CHUNKS; k++) {
                paths.complete(p, 1 << 20, true);
                s.onChunkComplete(p, 1 << 20, 1_000_000, ChunkOutcome.SUCCESS);
            }
        }
        delivered(paths);
        long[] second = placeMessage(s, paths, 2, total, 1 << 20, new ArrayList<>());
        assertArrayEquals(new long[] {total * 8 / 15, total * 4 / 15, total * 2 / 15, total / 15}, second,
                "after data, the measured rates (8:4:2:1) set it");
        // path 1 drops to a quarter: the next message follows the estimate
        paths.estimated[1] = 25 * MBIT;
        delivered(paths);
        long[] third = placeMessage(s, paths, 3, total, 1 << 20, new ArrayList<>());
        assertArrayEquals(new long[] {total * 8 / 12, total / 12, total * 2 / 12, total / 12}, third);
    }

    @Test
    void failedChunksDoNotCountAsMeasurementsAndAFailedPathIsMeasuredAfresh() {
        FakePaths paths = new FakePaths(2);
        paths.probed = new double[] {1e6, 1e6};
        paths.estimated = new double[] {3e6, 1e6};
        LoadBalancerSession s = session(paths, Map.of());
        for (int k = 0; k < ProportionalSession.MEASURED_AFTER_CHUNKS; k++) {
            s.onChunkComplete(0, 65536, 1_000_000, ChunkOutcome.RETRY_EXCEEDED);
            s.onChunkComplete(1, 65536, 1_000_000, ChunkOutcome.SUCCESS);
        }
        assertArrayEquals(new long[] {2000, 2000}, placeMessage(s, paths, 1, 4000, 1 << 20, new ArrayList<>()),
                "path 0 has no successful data chunk yet: its probe (1e6) counts; path 1's estimate equals it");
        for (int k = 0; k < ProportionalSession.MEASURED_AFTER_CHUNKS; k++) {
            s.onChunkComplete(0, 65536, 1_000_000, ChunkOutcome.SUCCESS);
        }
        delivered(paths);
        assertArrayEquals(new long[] {3000, 1000}, placeMessage(s, paths, 2, 4000, 1 << 20, new ArrayList<>()));
        paths.usable[0] = false;
        s.onPathsChanged();
        paths.usable[0] = true;
        s.onPathsChanged();
        delivered(paths);
        assertArrayEquals(new long[] {2000, 2000}, placeMessage(s, paths, 3, 4000, 1 << 20, new ArrayList<>()),
                "after the failure path 0 is back on its probe until it carries data again");
    }
}
