package dev.virtuoso.policy.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * What a small message costs in CPU, without any scheduling: one thread drives both ends of a
 * ping-pong, polling the two ends in turn, with the soft RNICs and the multipath engine run by that
 * thread ({@code invokeOnPoll} and {@code engineInvokeOnPoll}), so the engine threads stand back and
 * no message crosses a thread. A round trip's time is then the work of both sides, raw QP against
 * MP_SEND over one path: the multipath layer's own cost per message, apart from how a machine's
 * cores are shared (which the other latency commands measure too).
 *
 * <pre>
 * latency-one-thread [both|fabric|udp] [ITERATIONS]
 * </pre>
 * Sizes 8 B and 4 KiB; every arrival is checked to carry the next sequence number. The connection's
 * connect-time probes end first, and a whole unmeasured pass of every row warms the JIT compilers.
 * Standard output is the CSV: the round trip's p50 and p99 in microseconds after a tenth of the
 * iterations as warm-up, and the MP_SEND row's p50 against the raw QP's.
 */
final class OneThreadLatency {
    static final String HEADER = "wire,system,paths,bytes,p50_rt_us,p99_rt_us,p50_ratio_to_qp";
    private static final int[] SIZES = {8, 4096};
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private OneThreadLatency() {
    }

    public static void main(String[] args) throws Exception {
        List<String> wires = List.of("both", "fabric", "udp");
        if (args.length > 2 || (args.length > 0 && !wires.contains(args[0]))) {
            System.err.println("usage: latency-one-thread [both|fabric|udp] [ITERATIONS]");
            System.exit(2);
        }
        String which = args.length > 0 ? args[0] : "both";
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        if (iterations < 10) {
            throw new IllegalArgumentException("at least 10 round trips: " + iterations);
        }
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "# one thread drives both ends (round trip, us): %d round trips per row, soft RNICs"
                + " and engine run by the polling thread, load average at start %s%n", iterations,
                LatencyBench.loadAverage());
        out.println(HEADER);
        for (String wire : which.equals("both") ? List.of("fabric", "udp") : List.of(which)) {
            run(out, wire, iterations);
        }
        out.printf(Locale.ROOT, "# load average at the end %s%n", LatencyBench.loadAverage());
    }

    /** The rows of one wire: per size the raw QP's, then MP_SEND's. */
    static void run(PrintStream out, String wire, int iterations) throws Exception {
        try (LatencyRig rig = new LatencyRig(wire.equals("fabric"), 1, new LatencyBench.Engine(250, true),
                LinkSpec.UNLIMITED, true)) {
            MultipathConnection[] c = rig.connect(ConnectOptions.builder().build());
            awaitProbed(c[0]);
            awaitProbed(c[1]); // the connect-time probe flows would otherwise share the first rows' devices
            for (int size : SIZES) { // a first pass for the JIT compilers, which share the cores
                raw(rig, size, iterations);
                mp(c, size, iterations);
            }
            for (int size : SIZES) {
                long[] qp = raw(rig, size, iterations);
                long[] mp = mp(c, size, iterations);
                row(out, wire, "qp", size, qp, qp);
                row(out, wire, "mp_send", size, mp, qp);
            }
        }
    }

    /** Waits (at most 10 s) until every path of {@code c} has a probed capacity: its probe flows ended. */
    private static void awaitProbed(MultipathConnection c) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (c.pathStats().stream().anyMatch(p -> p.probedCapacity() <= 0)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("paths not probed within 10 s: " + c.pathStats());
            }
            Thread.sleep(10);
        }
    }

    private static void row(PrintStream out, String wire, String system, int size, long[] rt, long[] qp) {
        Arrays.sort(rt);
        out.printf(Locale.ROOT, "%s,%s,1,%d,%.2f,%.2f,%.2f%n", wire, system, size, LatencyBench.pct(rt, 0.5) / 1e3,
                LatencyBench.pct(rt, 0.99) / 1e3, (double) LatencyBench.pct(rt, 0.5) / LatencyBench.pct(qp, 0.5));
    }

    /** Raw verbs: a SEND from a, b's receive reposted and the answer sent, a's receive of it. */
    private static long[] raw(LatencyRig rig, int size, int iterations) throws Exception {
        try (RawQpPingPong.End a = new RawQpPingPong.End(rig.provider, "a", size);
                RawQpPingPong.End b = new RawQpPingPong.End(rig.provider, "b", size)) {
            a.connect(rig.b.get(0), b.ctx.udpPort(), b.qp.qpNum());
            b.connect(rig.a.get(0), a.ctx.udpPort(), a.qp.qpNum());
            a.postRecv();
            b.postRecv();
            int warm = iterations / 10;
            long[] rt = new long[iterations];
            for (int i = 0; i < warm + iterations; i++) {
                long t0 = System.nanoTime();
                a.postSend();
                long deadline = t0 + TIMEOUT_NANOS;
                while (a.recvs == 0) {
                    b.poll();
                    if (b.recvs > 0) {
                        b.recvs--;
                        b.postRecv();
                        b.postSend();
                    }
                    a.poll();
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("raw QP: no answer within 10 s");
                    }
                }
                long t = System.nanoTime() - t0;
                a.recvs--;
                a.postRecv();
                while (a.sends == 0 || b.sends == 0) { // both SENDs' completions, outside the timed span
                    a.poll();
                    b.poll();
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("raw QP: no send completion within 10 s");
                    }
                }
                a.sends--;
                b.sends--;
                if (i >= warm) {
                    rt[i - warm] = t;
                }
            }
            return rt;
        }
    }

    /** MP_SEND over the connection {@code c}: client c[0], server c[1]; each arrival checked. */
    private static long[] mp(MultipathConnection[] c, int size, int iterations) throws Exception {
        End client = new End(c[0], size);
        End server = new End(c[1], size);
        try {
            client.postRecv();
            server.postRecv();
            int warm = iterations / 10;
            long[] rt = new long[iterations];
            for (int i = 0; i < warm + iterations; i++) {
                long t0 = System.nanoTime();
                client.send(i);
                long deadline = t0 + TIMEOUT_NANOS;
                while (client.recvs == 0) {
                    server.poll();
                    if (server.recvs > 0) {
                        server.recvs--;
                        server.check(i);
                        if (i < warm + iterations - 1) {
                            server.postRecv(); // none left posted at the end: the region is closed then
                        }
                        server.send(i);
                    }
                    client.poll();
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("MP_SEND: no answer within 10 s");
                    }
                }
                long t = System.nanoTime() - t0;
                client.recvs--;
                client.check(i);
                if (i < warm + iterations - 1) {
                    client.postRecv();
                }
                while (client.sends == 0 || server.sends == 0) {
                    client.poll();
                    server.poll();
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("MP_SEND: no send completion within 10 s");
                    }
                }
                client.sends--;
                server.sends--;
                if (i >= warm) {
                    rt[i - warm] = t;
                }
            }
            return rt;
        } finally {
            client.close();
            server.close();
        }
    }

    /** One end of the MP ping-pong: a region (send half, receive half) and its completion counts. */
    private static final class End {
        final MultipathConnection c;
        final int size;
        final ByteBuffer buf;
        final MemoryRegion region;
        final MpCompletion[] comps = {new MpCompletion(), new MpCompletion(), new MpCompletion(), new MpCompletion()};
        int recvs;
        int sends;

        End(MultipathConnection c, int size) throws Exception {
            this.c = c;
            this.size = size;
            buf = ByteBuffer.allocateDirect(2 * size);
            region = c.register(buf, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
        }

        void send(long seq) throws Exception {
            buf.putLong(0, seq);
            c.postSend(2, region, 0, size);
        }

        void postRecv() throws Exception {
            c.postRecv(3, region, size, size);
        }

        void check(long seq) throws IOException {
            long got = buf.getLong(size);
            if (got != seq) {
                throw new IOException("arrival " + seq + " carries sequence " + got);
            }
        }

        void poll() throws IOException {
            int n = c.pollCompletions(comps);
            for (int i = 0; i < n; i++) {
                if (!comps[i].ok()) {
                    throw new IOException("MP_" + comps[i].opcode() + " failed: " + comps[i].status());
                }
                if (comps[i].opcode() == MpOpcode.RECV) {
                    recvs++;
                } else {
                    sends++;
                }
            }
        }

        void close() {
            region.close();
        }
    }
}
