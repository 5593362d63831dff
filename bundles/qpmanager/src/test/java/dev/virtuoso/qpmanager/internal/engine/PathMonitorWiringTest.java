package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.policy.lb.proportional.ProportionalPolicy;

/**
 * The path monitor wired into the core over the in-process fabric: probing at connect, the
 * proportional split by probed capacity, failback only after a successful probe, and the switch
 * back to the core's view when the monitor factory goes away mid-transfer.
 */
class PathMonitorWiringTest {
    private static final double MBIT = 1e6 / 8;

    @Test
    void probesEveryPathAtConnectAndSplitsInProportionToCapacity() throws Exception {
        try (Fabric f = new Fabric("rate=200m", "rate=50m")) {
            RecordingMonitors monitors = new RecordingMonitors();
            f.connector.pathMonitors(monitors);
            f.policies.add(ProportionalPolicy.NAME, new ProportionalPolicy());
            var o = Fabric.options().loadBalancer(ProportionalPolicy.NAME).chunkSize(128 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options()), 8 << 20);
            assertEquals(2, monitors.created.get(), "one monitor per side");

            Fabric.awaitProbed(p.client);
            // the connect-time flows ran on cold (interpreted) code; measure again warm
            p.write(8 << 20);
            for (int path = 0; path < 2; path++) {
                monitors.real.probe(p.client.id(), String.valueOf(path));
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!(monitors.flowsDone(p.client.id(), 0) >= 2 && monitors.flowsDone(p.client.id(), 1) >= 2)
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            List<PathStats> probed = p.client.pathStats();
            double fast = probed.get(0).probedCapacity();
            double slow = probed.get(1).probedCapacity();
            System.out.printf(java.util.Locale.ROOT, "path-monitor-wiring: probed %.1f Mbit/s (link 200) and %.1f Mbit/s (link 50)%n",
                    fast * 8 / 1e6, slow * 8 / 1e6);
            // Upper bound, guaranteed by the fabric: with no burst a link serialises every packet at
            // its rate, a probe flow counts payload bytes only (less than the bytes on the wire) and is
            // timed from before its first WRITE was posted, so no flow can measure more than the rate.
            // Lower bound, not guaranteed: the measurement is host-bound when the CPU is starved. Ten
            // runs beside seven other builds on 2 cores (load average 20-25) measured 27.5-195.0 Mbit/s
            // on the 200 Mbit/s link and 17.9-47.1 on the 50 Mbit/s one; rate/5 holds except there.
            assertTrue(fast > 200 * MBIT / 5 && fast <= 200 * MBIT, "200 Mbit/s path probed at " + fast * 8 / 1e6);
            assertTrue(slow > 50 * MBIT / 5 && slow <= 50 * MBIT, "50 Mbit/s path probed at " + slow * 8 / 1e6);

            // only the writes split with the warm measurements count
            long before0 = probed.get(0).bytesCompleted();
            long before1 = probed.get(1).bytesCompleted();
            for (int i = 0; i < 3; i++) {
                p.write(8 << 20);
            }
            List<PathStats> s = p.client.pathStats();
            double bytesRatio = (double) (s.get(0).bytesCompleted() - before0) / (s.get(1).bytesCompleted() - before1);
            double capacityRatio = s.get(0).probedCapacity() / s.get(1).probedCapacity();
            assertTrue(capacityRatio > 2, "capacity ratio " + capacityRatio + ": " + s);
            // in proportion to the capacities, as probed or as they are (4:1): the monitor re-probes
            // while the writes run, and a probe on a loaded host reads the fast path low (in CI once
            // 2.97:1 while the bytes went 3.87:1); round robin (1:1) is far outside either way
            double low = Math.min(capacityRatio, 4.0) * 0.7;
            double high = Math.max(capacityRatio, 4.0) * 1.3;
            assertTrue(bytesRatio > low && bytesRatio < high, "bytes split " + bytesRatio
                    + " : 1 for capacities " + capacityRatio + " : 1 probed, 4 : 1 real: " + s);
            assertEquals(0, s.get(0).chunksFailed() + s.get(1).chunksFailed(), s.toString());
        }
    }

    @Test
    void theAcceptingSideProbesOnlyAfterTheConnectingSidesProbesEnded() throws Exception {
        try (Fabric f = new Fabric("rate=100m", "rate=50m")) {
            RecordingMonitors monitors = new RecordingMonitors();
            f.connector.pathMonitors(monitors);
            MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
            Fabric.awaitProbed(cs[0]);
            Fabric.awaitProbed(cs[1]);
            String client = cs[0].id();
            String server = cs[1].id();
            List<RecordingMonitors.Event> all;
            synchronized (monitors.events) {
                all = List.copyOf(monitors.events);
            }
            int lastClientCompletion = -1;
            int firstServerIssue = -1;
            int clientIssues = 0;
            for (int i = 0; i < all.size(); i++) {
                RecordingMonitors.Event e = all.get(i);
                if (e.connection().equals(client) && e.kind().equals("probe")) {
                    lastClientCompletion = i;
                } else if (e.connection().equals(client) && e.kind().equals("issue")) {
                    clientIssues++;
                } else if (e.connection().equals(server) && e.kind().equals("issue") && firstServerIssue < 0) {
                    firstServerIssue = i;
                }
            }
            assertTrue(clientIssues >= 8, "the connecting side probed both paths: " + clientIssues + " WRITEs");
            assertTrue(firstServerIssue > lastClientCompletion, "the accepting side's first probe WRITE (event "
                    + firstServerIssue + ") comes after the connecting side's last probe completion (event "
                    + lastClientCompletion + ")");
            PathMonitorLink accepted = ((MpConnection) cs[1]).engine().monitor();
            assertTrue(accepted.peerProbesDone(), "PROBES_DONE arrived: " + accepted.describe());
            assertEquals(0, accepted.peerProbesTimeouts(), "no fallback: " + accepted.describe());
        }
    }

    @Test
    void theAcceptingSideStopsWaitingForProbesDoneAfterItsDeadline() throws Exception {
        try (Fabric f = new Fabric("rate=100m", "rate=100m")) {
            RecordingMonitors monitors = new RecordingMonitors();
            long start = System.nanoTime();
            // the connecting side keeps probing, so its PROBES_DONE comes well after the deadline
            monitors.connectingSideProbesUntilNanos = start + 2 * PathMonitorLink.PEER_PROBES_WAIT_NANOS;
            f.connector.pathMonitors(monitors);
            MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
            PathMonitorLink accepted = ((MpConnection) cs[1]).engine().monitor();
            String server = cs[1].id();
            long deadline = start + 10_000_000_000L;
            while (monitors.of(server, "issue", 0).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            long firstServerProbe = System.nanoTime();
            assertFalse(monitors.of(server, "issue", 0).isEmpty(), "the accepting side probes: " + accepted.describe());
            assertTrue(firstServerProbe - start >= PathMonitorLink.PEER_PROBES_WAIT_NANOS,
                    "not before its deadline: " + (firstServerProbe - start) / 1_000_000 + " ms");
            assertEquals(1, accepted.peerProbesTimeouts(), "it gave up waiting: " + accepted.describe());
            assertFalse(accepted.peerProbesDone(), "PROBES_DONE had not arrived: " + accepted.describe());

            Fabric.awaitProbed(cs[1]);
            // the connecting side's PROBES_DONE still arrives, late, and is accepted
            while (!accepted.peerProbesDone() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(accepted.peerProbesDone(), "late PROBES_DONE: " + accepted.describe());
            assertEquals(1, accepted.peerProbesTimeouts(), accepted.describe());
        }
    }

    @Test
    void aBrokenPathRejoinsOnlyAfterASuccessfulProbe() throws Exception {
        try (Fabric f = new Fabric("rate=400m", "rate=400m")) {
            RecordingMonitors monitors = new RecordingMonitors();
            f.connector.pathMonitors(monitors);
            // 67 ms ACK timeout: well above the queueing of a 512 KiB probe flow at 400 Mbit/s
            var o = Fabric.options().ackTimeout(14).retryCount(3).chunkSize(256 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(14).retryCount(3)), 16 << 20);
            Fabric.awaitProbed(p.client);
            p.write(4 << 20);

            f.links.get(1).down();
            p.write(16 << 20);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (p.client.pathStats().get(1).state() == PathState.UP && System.nanoTime() < deadline) {
                p.write(1 << 20);
            }
            assertTrue(p.client.pathStats().get(1).chunksFailed() > 0, "path 1 failed: " + p.client.pathStats());
            Thread.sleep(100);
            f.links.get(1).up();
            deadline = System.nanoTime() + 20_000_000_000L;
            long before = p.client.pathStats().get(1).bytesCompleted();
            while (p.client.pathStats().get(1).bytesCompleted() == before && System.nanoTime() < deadline) {
                p.write(4 << 20);
            }
            assertTrue(p.client.pathStats().get(1).bytesCompleted() > before, "path 1 carries data again");

            // after its failure, a data chunk is posted on path 1 only while it is UP and not on
            // probation. A repaired path skips probation if it was not on probation when it failed
            // and carried something (a data chunk or a probe flow) between its previous UP and the
            // failure (a loss on a working path), or posted no data since that UP and carried
            // something before (nothing at stake); otherwise it stays out until a probe flow
            // succeeds after its latest UP. While the link is down the path fails again before
            // carrying anything, so probation must have ended at least once
            boolean failed = false;
            boolean recovering = false;
            boolean onProbation = false;
            boolean carried = false;
            boolean everCarried = false;
            boolean posted = false;
            long flowsAtUp = 0;
            int postsAfterFailure = 0;
            int ups = 0;
            int probationsEnded = 0;
            for (RecordingMonitors.Event e : monitors.of(p.client.id())) {
                if (e.path() != 1) {
                    continue;
                }
                switch (e.kind()) {
                    case "state" -> {
                        if (e.detail().equals("RECOVERING")) {
                            failed = true;
                            recovering = true;
                        } else if (e.detail().equals("UP") && failed) {
                            ups++;
                            recovering = false;
                            boolean nothingToProve = !onProbation && (carried || (!posted && everCarried));
                            onProbation = !nothingToProve;
                            carried = false;
                            posted = false;
                            flowsAtUp = e.probeFlowsDone();
                        }
                    }
                    case "complete" -> {
                        if (e.detail().equals("SUCCESS")) {
                            carried = true;
                            everCarried = true;
                        }
                    }
                    case "probe" -> {
                        if (e.detail().equals("SUCCESS") && e.probeFlowsDone() > flowsAtUp) {
                            carried = true;
                            everCarried = true;
                            if (onProbation) {
                                onProbation = false;
                                probationsEnded++;
                            }
                        }
                    }
                    case "post" -> {
                        posted = true;
                        if (failed) {
                            assertFalse(recovering || onProbation, "chunk posted on path 1 while it was out: "
                                    + monitors.of(p.client.id(), "state", 1) + " " + monitors.of(p.client.id(), "probe", 1));
                            postsAfterFailure++;
                        }
                    }
                    default -> {
                    }
                }
            }
            assertTrue(failed && ups > 0 && postsAfterFailure > 0 && probationsEnded > 0,
                    "failure, probation, failback and data seen: failed=" + failed + " ups=" + ups + " posts="
                            + postsAfterFailure + " probations ended=" + probationsEnded);
            p.read(4 << 20);
        }
    }

    @Test
    void unbindingTheFactoryMidTransferMovesToTheCoreViewWithoutFailures() throws Exception {
        try (Fabric f = new Fabric("rate=200m", "rate=100m")) {
            RecordingMonitors monitors = new RecordingMonitors();
            f.connector.pathMonitors(monitors);
            f.policies.add(ProportionalPolicy.NAME, new ProportionalPolicy());
            var o = Fabric.options().loadBalancer(ProportionalPolicy.NAME).chunkSize(256 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options()), 24 << 20);
            List<PathStats> probed = Fabric.awaitProbed(p.client);
            MpConnection client = (MpConnection) p.client;
            assertTrue(client.engine().monitor().monitored());

            p.fill(p.clientBuf, 0, 24 << 20);
            p.client.postWrite(7, p.clientMr, 0, 24 << 20, p.serverMr.remote(), 0);
            Thread.sleep(150);
            assertEquals(0, f.connector.pathMonitorsGone(monitors, 5000), "every connection detached in time");
            assertEquals(2, monitors.closed.get(), "both monitors closed");
            assertFalse(client.engine().monitor().monitored());

            MpCompletion c = Pair.await(p.client);
            assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
            assertEquals(7, c.wrId());
            Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, 24 << 20);
            assertEquals(0, client.engine().decomposition().counters().messagesFailed(), client.describe());
            p.write(4 << 20);
            p.sendAll(1000, 300_000, 5);
            assertEquals(0, monitors.callsAfterClose.get(), "no monitor call after close");
            assertEquals(ProportionalPolicy.NAME, p.client.loadBalancer(), "the sessions were re-created");
            List<PathStats> after = p.client.pathStats();
            assertEquals(probed.get(0).probedCapacity(), after.get(0).probedCapacity(), 1e-6,
                    "the core's view keeps the last probed capacity");
        }
    }

    @Test
    void aMonitorRefusingTheConnectionsPropertiesFailsTheConnectClearly() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            f.connector.pathMonitors(new dev.virtuoso.pathmonitor.internal.PathMonitorService());
            var bad = Fabric.options().policyProperty("pathmonitor.probeFlowBytes", 1024);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> f.connect(bad, Fabric.options()));
            assertTrue(e.getMessage().contains("path monitor refused"), e.getMessage());
            // the accepting side (valid properties) may have established; it ends when the client drops it
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!f.connector.connections().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(f.connector.connections().isEmpty(), "nothing left open: " + f.connector.connections());
        }
    }
}
