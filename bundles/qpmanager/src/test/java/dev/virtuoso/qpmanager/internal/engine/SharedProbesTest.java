package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.policy.lb.proportional.ProportionalPolicy;

/**
 * Probe results shared per path pair over the in-process fabric (host a: 10.0.1.x, host b:
 * 10.0.2.x; links 200, 50 and 100 Mbit/s): a second connection between the same vNICs starts with
 * the first one's capacities, posts no probe WRITE on either side and splits like the first; a
 * connection with one new path pair probes that path only; a connection that sets the max age to 0
 * probes everything.
 */
class SharedProbesTest {
    private static final double MBIT = 1e6 / 8;
    private static final long WAIT_NANOS = 10_000_000_000L;

    private static PathMonitorLink link(MultipathConnection c) {
        return ((MpConnection) c).engine().monitor();
    }

    /** Waits until the accepting side heard PROBES_DONE (its deferred probes would start then). */
    private static void awaitStaggerOver(MultipathConnection server) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!link(server).peerProbesDone() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(link(server).peerProbesDone(), link(server).describe());
        Thread.sleep(200); // a probe it would start now has been handed out by then
    }

    private static int issued(RecordingMonitors monitors, String connection, int path) {
        return monitors.of(connection, "issue", path).size();
    }

    @Test
    void connectionsBetweenTheSameVnicsProbeOnceAndSplitByTheSharedCapacities() throws Exception {
        try (Fabric f = new Fabric("rate=200m", "rate=50m", "rate=100m")) {
            RecordingMonitors monitors = new RecordingMonitors();
            f.connector.pathMonitors(monitors);
            f.policies.add(ProportionalPolicy.NAME, new ProportionalPolicy());
            var client = Fabric.options().loadBalancer(ProportionalPolicy.NAME).chunkSize(128 * 1024)
                    .localAddresses(f.aAddresses.get(0), f.aAddresses.get(1))
                    .remoteAddresses(f.bAddresses.get(0), f.bAddresses.get(1));
            MultipathConnection[] first = f.connect(client, Fabric.options());
            Pair p1 = new Pair(first, 8 << 20);
            Fabric.awaitProbed(first[0]);
            Fabric.awaitProbed(first[1]);
            assertTrue(issued(monitors, first[0].id(), 0) > 0 && issued(monitors, first[0].id(), 1) > 0,
                    "the first connection probes both paths");
            // the connect-time flows ran on cold code; measure again warm: requested probes refresh the entries
            p1.write(8 << 20);
            for (int path = 0; path < 2; path++) {
                monitors.real.probe(first[0].id(), String.valueOf(path));
            }
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (!(monitors.flowsDone(first[0].id(), 0) >= 2 && monitors.flowsDone(first[0].id(), 1) >= 2)
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            List<PathStats> firstClient = first[0].pathStats();
            List<PathStats> firstServer = first[1].pathStats();

            MultipathConnection[] second = f.connect(client, Fabric.options());
            awaitStaggerOver(second[1]);
            List<PathStats> secondClient = second[0].pathStats();
            List<PathStats> secondServer = second[1].pathStats();
            for (int path = 0; path < 2; path++) {
                assertEquals(firstClient.get(path).probedCapacity(), secondClient.get(path).probedCapacity(),
                        "client path " + path + ": the first connection's latest (warm) capacity");
                assertEquals(firstServer.get(path).probedCapacity(), secondServer.get(path).probedCapacity(),
                        "server path " + path + ": this direction's own entry");
                assertEquals(0, issued(monitors, second[0].id(), path), "no client probe on path " + path);
                assertEquals(0, issued(monitors, second[1].id(), path), "no server probe on path " + path);
            }
            assertEquals(0, link(second[0]).probesPosted(), link(second[0]).describe());
            assertEquals(0, link(second[1]).probesPosted(), link(second[1]).describe());
            assertEquals(2, link(second[0]).capacitiesSeeded());
            assertEquals(2, link(second[1]).capacitiesSeeded());

            // the shared figures are the links' capacities: the second connection splits as if it had probed
            double fast = secondClient.get(0).probedCapacity();
            double slow = secondClient.get(1).probedCapacity();
            // as in PathMonitorWiringTest: never above the link's rate; rate/5 holds except on a starved host
            assertTrue(fast > 200 * MBIT / 5 && fast <= 200 * MBIT, "200 Mbit/s path at " + fast * 8 / 1e6);
            assertTrue(slow > 50 * MBIT / 5 && slow <= 50 * MBIT, "50 Mbit/s path at " + slow * 8 / 1e6);
            Pair p2 = new Pair(second, 8 << 20);
            for (int i = 0; i < 3; i++) {
                p2.write(8 << 20);
            }
            List<PathStats> s = second[0].pathStats();
            double bytesRatio = (double) s.get(0).bytesCompleted() / s.get(1).bytesCompleted();
            double capacityRatio = fast / slow;
            assertTrue(capacityRatio > 2, "capacity ratio " + capacityRatio + ": " + s);
            assertTrue(Math.abs(bytesRatio / capacityRatio - 1) < 0.3,
                    "bytes split " + bytesRatio + " : 1 for capacities " + capacityRatio + " : 1: " + s);
            assertEquals(0, s.get(0).chunksFailed() + s.get(1).chunksFailed(), s.toString());

            // one pair shared (10.0.1.1 - 10.0.2.1), one new (10.0.1.3 - 10.0.2.3): only the new one is probed
            var other = client.build().toBuilder().localAddresses(f.aAddresses.get(0), f.aAddresses.get(2))
                    .remoteAddresses(f.bAddresses.get(0), f.bAddresses.get(2));
            MultipathConnection[] third = f.connect(other, Fabric.options());
            List<PathStats> thirdClient = Fabric.awaitProbed(third[0]);
            Fabric.awaitProbed(third[1]);
            awaitStaggerOver(third[1]);
            assertEquals(fast, thirdClient.get(0).probedCapacity(), "the shared pair");
            assertTrue(thirdClient.get(1).probedCapacity() <= 100 * MBIT, "probed " + thirdClient);
            for (MultipathConnection c : third) {
                assertEquals(0, issued(monitors, c.id(), 0), "shared path not probed: " + link(c).describe());
                assertTrue(issued(monitors, c.id(), 1) > 0, "new path probed: " + link(c).describe());
                assertEquals(1, link(c).capacitiesSeeded());
            }

            // a connection that wants its own measurements: max age 0 on both sides
            var own = client.build().toBuilder().policyProperty("pathmonitor.sharedCapacityMaxAgeMillis", 0);
            MultipathConnection[] fourth = f.connect(own, Fabric.options()
                    .policyProperty("pathmonitor.sharedCapacityMaxAgeMillis", "0"));
            Fabric.awaitProbed(fourth[0]);
            Fabric.awaitProbed(fourth[1]);
            for (MultipathConnection c : fourth) {
                for (int path = 0; path < 2; path++) {
                    assertTrue(issued(monitors, c.id(), path) > 0, "path " + path + ": " + link(c).describe());
                }
                assertEquals(0, link(c).capacitiesSeeded());
                assertFalse(monitors.of(c.id(), "seed", 0).isEmpty(), "offered, refused");
            }
        }
    }
}
