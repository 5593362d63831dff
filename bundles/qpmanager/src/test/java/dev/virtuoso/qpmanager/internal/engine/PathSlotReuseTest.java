package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;

/**
 * A removed path's slot is reused by a later addition: 200 remove/add cycles on a connection of
 * 32 slots, each followed by verified transfers over both paths. Chunks, probes and completions of
 * the removed incarnation were released (their wr_id generations bumped) before the slot was
 * freed, so nothing of the old QP is credited to the new one.
 */
class PathSlotReuseTest {
    private static final int CYCLES = 200;

    private static void awaitUp(MultipathConnection c, int path) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<PathStats> st = c.pathStats();
            if (st.size() > path && st.get(path).state() == PathState.UP) {
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("path " + path + " not UP: " + c.pathStats());
    }

    private static long upPaths(MultipathConnection c) {
        return c.pathStats().stream().filter(s -> s.state() == PathState.UP).count();
    }

    @Test
    void twoHundredRemoveAndAddCyclesReuseThePathSlots() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            cycles(f, CYCLES);
        }
    }

    @Test
    void withoutSrqTheReusedSlotsPathsGetTheirOwnReceiveQueues() throws Exception {
        try (Fabric f = Fabric.withoutSrq("rate=0", "rate=0")) {
            cycles(f, 60);
        }
    }

    private static void cycles(Fabric f, int cycles) throws Exception {
        Pair p = new Pair(f.connect(Fabric.options().chunkSize(64 * 1024), Fabric.options()), 1 << 20);
        assertEquals(32, CoreSettings.DEFAULTS.maxPaths());
        int path = 1;
        for (int i = 0; i < cycles; i++) {
            p.client.removePath(path);
            path = p.client.addPath(f.aAddresses.get(1), f.bAddresses.get(1));
            awaitUp(p.client, path);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (upPaths(p.server) < 2 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(2, upPaths(p.server), "cycle " + i + ": " + p.server.pathStats());
            MpCompletion w = p.write(256 * 1024);
            assertEquals(2, w.paths(), "cycle " + i + ": both paths carried the write");
            if (i % 25 == 0) {
                p.read(256 * 1024);
                p.sendAll(100, 200 * 1024);
            }
        }
        assertTrue(p.client.pathStats().size() <= 4, "slots reused: " + p.client.pathStats());
        assertTrue(p.server.pathStats().size() <= 4, "slots reused: " + p.server.pathStats());
        PathStats reused = p.client.pathStats().get(path);
        assertTrue(reused.bytesCompleted() <= 3 * 256 * 1024, "a reused slot starts its counters afresh: " + reused);
    }

    @Test
    void withAPathMonitorAReusedSlotIsAPathComingBackOnProbation() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            f.connector.pathMonitors(new dev.virtuoso.pathmonitor.internal.PathMonitorService());
            Pair p = new Pair(f.connect(Fabric.options().chunkSize(64 * 1024), Fabric.options()), 1 << 20);
            int path = 1;
            for (int i = 0; i < 40; i++) {
                p.client.removePath(path);
                path = p.client.addPath(f.aAddresses.get(1), f.bAddresses.get(1));
                awaitUp(p.client, path);
                p.write(256 * 1024);
            }
            assertTrue(p.client.pathStats().size() <= 4, "slots reused: " + p.client.pathStats());
            for (MultipathConnection c : new MultipathConnection[] {p.client, p.server}) {
                String d = ((MpConnection) c).describe();
                assertTrue(d.contains("monitorFaults=0"), "the monitor accepted every reused slot: " + d);
                assertFalse(d.contains("monitor=none"), "a monitor was in use: " + d);
            }
        }
    }
}
