package dev.virtuoso.policy.lb.adaptive;

import static dev.virtuoso.policy.lb.adaptive.PathSimulation.MBIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PolicyContext;

class AdaptivePolicyTest {
    private static final long MS = 1_000_000L;
    private static final long MIB = 1 << 20;

    private static AdaptiveSession session(FakePaths paths, Map<String, Object> props) {
        return (AdaptiveSession) new AdaptivePolicy().newSession(new PolicyContext("c", props), paths);
    }

    private static PathSimulation stream(double... mbits) {
        double[] rate = new double[mbits.length];
        for (int i = 0; i < rate.length; i++) {
            rate[i] = mbits[i] * MBIT;
        }
        FakePaths view = new FakePaths(rate.length);
        return new PathSimulation(view, session(view, Map.of()), rate, MIB, 4, 100_000, 16 * MIB, Integer.MAX_VALUE);
    }

    private static double sum(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v;
        }
        return s;
    }

    @Test
    void heterogeneousPathsAreFilled() {
        PathSimulation sim = stream(200, 100, 50, 25);
        sim.runUntil(1000 * MS);
        long before = sim.deliveredTotal();
        long[] perPathBefore = sim.delivered.clone();
        sim.runUntil(3000 * MS);
        double goodput = (sim.deliveredTotal() - before) / 2.0;
        assertTrue(goodput >= 0.95 * sum(sim.rate), "goodput " + goodput / MBIT + " Mbit/s of 375");
        for (int p = 0; p < 4; p++) {
            double pathRate = (sim.delivered[p] - perPathBefore[p]) / 2.0;
            assertEquals(sim.rate[p], pathRate, sim.rate[p] * 0.05, "path " + p + " kept busy");
        }
    }

    @Test
    void followsARateHalvingWithinASecond() {
        PathSimulation sim = stream(200, 100, 50, 25);
        sim.runUntil(2000 * MS);
        sim.rate[0] /= 2; // 200 -> 100 Mbit/s
        sim.runUntil(2300 * MS);
        long before = sim.deliveredTotal();
        sim.runUntil(3000 * MS);
        double goodput = (sim.deliveredTotal() - before) / 0.7;
        assertTrue(goodput >= 0.90 * sum(sim.rate), "goodput " + goodput / MBIT + " Mbit/s of 275 within 1 s");
    }

    @Test
    void estimatesTrackCapacityChangesBothWays() {
        double[] rate = {100 * MBIT, 100 * MBIT};
        FakePaths view = new FakePaths(2);
        AdaptiveSession lb = session(view, Map.of());
        PathSimulation sim = new PathSimulation(view, lb, rate, MIB, 4, 100_000, 16 * MIB, Integer.MAX_VALUE);
        sim.runUntil(1000 * MS);
        assertEquals(100 * MBIT, lb.measuredRate(0), 100 * MBIT * 0.05);
        rate[0] = 25 * MBIT;
        rate[1] = 200 * MBIT;
        sim.runUntil(2000 * MS);
        assertEquals(25 * MBIT, lb.measuredRate(0), 25 * MBIT * 0.10, "decrease seen within 1 s");
        assertEquals(200 * MBIT, lb.measuredRate(1), 200 * MBIT * 0.10, "increase seen within 1 s");
    }

    @Test
    void singleLargeMessageFinishesNearTheIdealTime() {
        double[] rate = {200 * MBIT, 100 * MBIT, 50 * MBIT, 25 * MBIT};
        FakePaths view = new FakePaths(4);
        view.probed = rate.clone(); // probed at connect, as the path monitor does
        PathSimulation sim = new PathSimulation(view, session(view, Map.of()), rate, MIB, 4, 100_000, 64 * MIB, 1);
        sim.runUntil(3000 * MS);
        double ideal = 64 * MIB / sum(rate) * 1e9;
        assertTrue(sim.lastMessageDoneNanos > 0, "message done");
        assertTrue(sim.lastMessageDoneNanos <= ideal * 1.05,
                "done after " + sim.lastMessageDoneNanos / MS + " ms, ideal " + (long) (ideal / MS) + " ms");
    }

    @Test
    void newPathIsExploredAndUsed() {
        double[] rate = {100 * MBIT, 100 * MBIT, 0};
        FakePaths view = new FakePaths(2);
        AdaptiveSession lb = session(view, Map.of());
        PathSimulation sim = new PathSimulation(view, lb, rate, MIB, 4, 100_000, 16 * MIB, Integer.MAX_VALUE);
        sim.runUntil(500 * MS);
        rate[2] = 100 * MBIT;
        view.resize(3);
        lb.onPathsChanged();
        sim.runUntil(600 * MS);
        long before = sim.delivered[2];
        assertTrue(before > 0, "explored at once");
        sim.runUntil(1100 * MS);
        assertEquals(100 * MBIT, (sim.delivered[2] - before) / 0.5, 100 * MBIT * 0.05, "and kept busy");
    }

    @Test
    void waitsWhenEveryPathIsFull() {
        FakePaths view = new FakePaths(2);
        view.probed = new double[] {1e6, 1e6};
        AdaptiveSession lb = session(view, Map.of("lb-adaptive.exploreEvery", 0));
        ChunkPlacement out = new ChunkPlacement();
        int placed = 0;
        while (lb.place(1, 100 * MIB, out)) {
            view.post(out.path(), Math.min(out.maxBytes(), MIB));
            placed++;
            assertTrue(placed < 100);
        }
        assertEquals(4, placed, "two chunks per path, then wait for completions");
        view.now += 30 * MS;
        view.complete(0, 65536, true);
        lb.onChunkComplete(0, 65536, 30 * MS, ChunkOutcome.SUCCESS);
        assertTrue(lb.place(1, 100 * MIB, out));
        assertEquals(0, out.path(), "the completion clocks the next chunk onto its path");
    }

    @Test
    void choiceRefusedByTheCoreIsAvoidedUntilSomethingChanges() {
        FakePaths view = new FakePaths(2);
        view.probed = new double[] {100e6, 1e6};
        AdaptiveSession lb = session(view, Map.of("lb-adaptive.exploreEvery", 0));
        ChunkPlacement out = new ChunkPlacement();
        assertTrue(lb.place(1, 100 * MIB, out));
        assertEquals(0, out.path(), "the fast path first");
        view.post(0, out.maxBytes());
        assertTrue(lb.place(1, 100 * MIB, out));
        assertEquals(0, out.path(), "one chunk in flight is not full for the session");
        // the core's congestion-avoidance window (1) refuses it and asks again without posting
        assertTrue(lb.place(1, 100 * MIB, out));
        assertEquals(1, out.path(), "asked again: another path");
        view.post(1, out.maxBytes());
        view.now += 10 * MS;
        view.complete(0, 2 * MIB, true);
        lb.onChunkComplete(0, 2 * MIB, 10 * MS, ChunkOutcome.SUCCESS);
        assertTrue(lb.place(1, 100 * MIB, out));
        assertEquals(0, out.path(), "a completion clears the refusal");
    }

    @Test
    void unusablePathsAreSkippedAndRemeasuredOnReturn() {
        double[] rate = {100 * MBIT, 100 * MBIT};
        FakePaths view = new FakePaths(2);
        AdaptiveSession lb = session(view, Map.of());
        PathSimulation sim = new PathSimulation(view, lb, rate, MIB, 4, 100_000, 16 * MIB, Integer.MAX_VALUE);
        sim.runUntil(500 * MS);
        assertTrue(lb.measuredRate(1) > 0);
        view.usable[1] = false;
        lb.onPathsChanged();
        long onOne = view.inFlightBytes[1] + view.completed[1];
        sim.runUntil(1000 * MS);
        assertEquals(onOne, view.inFlightBytes[1] + view.completed[1], "nothing new placed on a failed path");
        view.usable[1] = true;
        lb.onPathsChanged();
        ChunkPlacement out = new ChunkPlacement();
        assertTrue(lb.place(99, MIB, out));
        assertEquals(0, lb.measuredRate(1), "forgotten: a re-created QP is measured afresh");
    }

    @Test
    void settingsAreValidated() {
        FakePaths view = new FakePaths(1);
        assertThrows(IllegalArgumentException.class, () -> session(view, Map.of("lb-adaptive.tailAware", "maybe")));
        assertThrows(IllegalArgumentException.class, () -> session(view, Map.of("lb-adaptive.minInFlightChunks", 0)));
        LoadBalancerSession s = session(view, Map.of("lb-adaptive.tailAware", "false", "lb-adaptive.minChunkBytes", 4096));
        ChunkPlacement out = new ChunkPlacement();
        assertTrue(s.place(1, MIB, out));
        assertEquals(4096, out.maxBytes(), "unknown path explored with minChunkBytes");
        view.post(0, 4096);
        assertFalse(s.place(1, MIB, out), "and waits for that completion");
    }
}
