package dev.virtuoso.policy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;

/**
 * The latency bench's parts do what they say: ping-pongs return one sample per measured round trip,
 * rows carry the engine counters (or "-"), windows are validated, the two-process protocol of the
 * veth wire runs its whole plan (here both ends in this process, over loopback addresses), and the
 * veth wire is skipped with a message where it cannot run. Not a measurement.
 */
class LatencyBenchTest {
    private static String text(ByteArrayOutputStream b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    @Test
    void multipathAndRawPingPongsReturnOneSamplePerRoundTrip() throws Exception {
        try (LatencyRig rig = new LatencyRig(true, 2, new LatencyBench.Engine(250, false))) {
            MultipathConnection[] c = rig.connect(new LatencyBench.Plan(20, 65536,
                    LatencyBench.Plan.parseSpins("250")).options());
            for (boolean writeNotify : new boolean[] {false, true}) {
                for (int size : new int[] {8, 4096, 100_000}) {
                    long[] s = MpPingPong.run(c, size, 20, writeNotify);
                    assertEquals(20, s.length);
                    for (long v : s) {
                        assertTrue(v > 0, "a half round trip takes time: " + v);
                    }
                }
            }
            for (boolean writeNotify : new boolean[] {false, true}) {
                // receives posted three ahead: every arrival still carries the next sequence number, and
                // no receive is left posted when the regions close (the run would fail)
                assertEquals(20, MpPingPong.run(c, 4096, 20, writeNotify, 3).length);
                assertEquals(5, MpPingPong.run(c, 8, 5, writeNotify, 8).length, "deeper than the messages");
            }
            assertThrows(IllegalArgumentException.class, () -> MpPingPong.run(c, 8, 5, false, 0));
            long[] raw = RawQpPingPong.run(rig, 4096, 20);
            assertEquals(20, raw.length);
            assertTrue(raw[0] > 0);
        }
    }

    @Test
    void rowsCarryTheEngineCountersOrDashes() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8);
        LatencyBench.report(out, "fabric", "qp", 1, 8, null, new long[] {2000, 1000, 3000}, -1, -1);
        LatencyBench.report(out, "fabric", "mp_send", 4, 8, new LatencyBench.Engine(250, false), new long[] {1000},
                0.5, 0.25);
        LatencyBench.report(out, "fabric", "mp_send", 4, 8, LatencyBench.Engine.parse("250p"), new long[] {1000},
                0.5, 0.25);
        String[] lines = text(b).split("\n");
        assertEquals("fabric,qp,1,8,-,2.0,3.0,3.0,3,-,-,-", lines[0]);
        assertEquals("fabric,mp_send,4,8,250,1.0,1.0,1.0,1,0.50,0.25,agent", lines[1]);
        assertEquals("fabric,mp_send,4,8,250,1.0,1.0,1.0,1,0.50,0.25,poll", lines[2]);
        assertEquals(LatencyBench.HEADER.split(",").length, lines[1].split(",").length);
    }

    @Test
    void negativeWindowsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> LatencyBench.Plan.parseSpins("0,-1"));
        assertThrows(IllegalArgumentException.class, () -> LatencyBench.Plan.parseSpins("250q"));
        assertEquals(List.of(new LatencyBench.Engine(0, false), new LatencyBench.Engine(250, true)),
                List.of(LatencyBench.Plan.parseSpins("0,250p")));
        assertEquals("0,250p", new LatencyBench.Plan(1, 1, LatencyBench.Plan.parseSpins("0,250p")).spins(),
                "the plan travels to the veth peers as text");
    }

    @Test
    void twoPeersRunTheWholePlan() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        LatencyBench.Plan plan = new LatencyBench.Plan(20, 65536, LatencyBench.Plan.parseSpins("250p"));
        List<String> a = List.of("127.0.3.1", "127.0.3.2", "127.0.3.3", "127.0.3.4");
        List<String> b = List.of("127.0.4.1", "127.0.4.2", "127.0.4.3", "127.0.4.4");
        LatencyPeer server = new LatencyPeer(true, plan, LatencyPeer.addresses(String.join(",", b)),
                LatencyPeer.addresses(String.join(",", a)));
        LatencyPeer client = new LatencyPeer(false, plan, LatencyPeer.addresses(String.join(",", a)),
                LatencyPeer.addresses(String.join(",", b)));
        AtomicReference<Exception> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                server.run(port, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            } catch (Exception e) {
                failed.set(e);
            }
        }, "latency-peer-server");
        t.start();
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        client.run(port, new PrintStream(rows, true, StandardCharsets.UTF_8));
        t.join(60_000);
        if (failed.get() != null) {
            throw failed.get();
        }
        List<String> lines = text(rows).lines().toList();
        // tcp and qp: 4 sizes each; multipath: 2 path counts x 2 operations x 4 sizes
        assertEquals(4 + 4 + 16, lines.size(), text(rows));
        assertEquals(4, lines.stream().filter(l -> l.startsWith("veth,tcp,")).count());
        assertEquals(4, lines.stream().filter(l -> l.startsWith("veth,qp,")).count());
        assertEquals(8, lines.stream().filter(l -> l.startsWith("veth,mp_send,")).count());
        assertEquals(16, lines.stream().filter(l -> l.endsWith(",poll")).count(), "the peers ran the plan's engine");
        assertEquals(8, lines.stream().filter(l -> l.startsWith("veth,mp_write_notify,4,")
                || l.startsWith("veth,mp_write_notify,1,")).count());
    }

    @Test
    void vethIsSkippedWithAMessageWhereItCannotRun() throws Exception {
        String missing = VethLatency.unavailable();
        assumeTrue(missing != null, "this machine can run the veth wire (root, iproute2): nothing to skip");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        VethLatency.run(new PrintStream(b, true, StandardCharsets.UTF_8), new LatencyBench.Plan(20, 65536,
                LatencyBench.Plan.parseSpins("250")));
        assertEquals("# veth: skipped, " + missing, text(b).trim());
    }

    @Test
    void vethAddressesArePathOrdered() {
        assertEquals("198.19.1.2,198.19.2.2,198.19.3.2,198.19.4.2", VethLatency.addresses("2"));
    }
}
