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
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.VerbsCounter;
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
 * latency-one-thread [both|fabric|udp] [ITERATIONS] [RX_DEPTH]
 * </pre>
 * Sizes 8 B and 4 KiB; every arrival, raw or multipath, is checked to carry the round's sequence
 * number. The connection's connect-time probes end first, and a whole unmeasured pass of every row
 * warms the JIT compilers. Standard output is the CSV: the round trip's p50 and p99 in
 * microseconds after a tenth of the iterations as warm-up, and the MP_SEND row's p50 against the
 * raw QP's; then, from a third pass with a clock read around each of the server's calls (so not
 * in the timed pass), the mean time of its post of the answer ({@code post_ns}) and of its poll
 * that returns the arrival ({@code arrival_poll_ns}): where a round trip's time goes; and the
 * datagrams both soft RNICs sent per round trip in that pass ({@code packets_per_rt}: messages,
 * ACKs and control messages alike). RX_DEPTH (default 1) is the MP_RECVs each MP end keeps posted
 * ahead, as perftest's {@code --rx-depth}; the raw QP keeps one.
 */
final class OneThreadLatency {
    static final String HEADER = "wire,system,paths,bytes,p50_rt_us,p99_rt_us,p50_ratio_to_qp,post_ns,arrival_poll_ns,"
            + "packets_per_rt";
    private static final int[] SIZES = {8, 4096};
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private OneThreadLatency() {
    }

    public static void main(String[] args) throws Exception {
        List<String> wires = List.of("both", "fabric", "udp");
        if (args.length > 3 || (args.length > 0 && !wires.contains(args[0]))) {
            System.err.println("usage: latency-one-thread [both|fabric|udp] [ITERATIONS] [RX_DEPTH]");
            System.exit(2);
        }
        String which = args.length > 0 ? args[0] : "both";
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int rxDepth = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        if (iterations < 10 || rxDepth < 1 || rxDepth > 32) {
            throw new IllegalArgumentException("at least 10 round trips and a receive depth of 1..32: "
                    + iterations + ", " + rxDepth);
        }
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "# one thread drives both ends (round trip, us): %d round trips per row, soft RNICs"
                + " and engine run by the polling thread, MP_RECVs posted ahead %d, load average at start %s%n",
                iterations, rxDepth, LatencyBench.loadAverage());
        out.println(HEADER);
        for (String wire : which.equals("both") ? List.of("fabric", "udp") : List.of(which)) {
            run(out, wire, iterations, rxDepth);
        }
        out.printf(Locale.ROOT, "# load average at the end %s%n", LatencyBench.loadAverage());
    }

    /** The rows of one wire: per size the raw QP's, then MP_SEND's. */
    static void run(PrintStream out, String wire, int iterations, int rxDepth) throws Exception {
        try (LatencyRig rig = new LatencyRig(wire.equals("fabric"), 1, new LatencyBench.Engine(250, true),
                LinkSpec.UNLIMITED, true)) {
            MultipathConnection[] c = rig.connect(ConnectOptions.builder().build());
            awaitProbed(c[0]);
            awaitProbed(c[1]); // the connect-time probe flows would otherwise share the first rows' devices
            for (int size : SIZES) { // a first pass for the JIT compilers, which share the cores
                raw(rig, size, iterations, null);
                mp(c, size, iterations, null, rxDepth);
            }
            try (Datagrams sent = new Datagrams(rig)) {
                for (int size : SIZES) {
                    long[] qp = raw(rig, size, iterations, null);
                    long[] mp = mp(c, size, iterations, null, rxDepth);
                    long[] qpCalls = new long[3];
                    long[] mpCalls = new long[3];
                    long before = sent.count();
                    raw(rig, size, iterations, qpCalls);
                    qpCalls[2] = sent.count() - before;
                    before = sent.count();
                    mp(c, size, iterations, mpCalls, rxDepth);
                    mpCalls[2] = sent.count() - before;
                    row(out, wire, "qp", size, qp, qp, qpCalls, iterations);
                    row(out, wire, "mp_send", size, mp, qp, mpCalls, iterations);
                }
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

    private static void row(PrintStream out, String wire, String system, int size, long[] rt, long[] qp,
            long[] calls, int iterations) {
        Arrays.sort(rt);
        // packets over the whole pass, warm-up included: a tenth more round trips than timed
        double perRoundTrip = (double) calls[2] / (iterations + iterations / 10);
        out.printf(Locale.ROOT, "%s,%s,1,%d,%.2f,%.2f,%.2f,%d,%d,%.2f%n", wire, system, size,
                LatencyBench.pct(rt, 0.5) / 1e3, LatencyBench.pct(rt, 0.99) / 1e3,
                (double) LatencyBench.pct(rt, 0.5) / LatencyBench.pct(qp, 0.5), calls[1] / iterations,
                calls[0] / iterations, perRoundTrip);
    }

    /** Raw verbs: a SEND from a, b's receive reposted and the answer sent, a's receive of it. */
    private static long[] raw(LatencyRig rig, int size, int iterations, long[] calls) throws Exception {
        try (RawQpPingPong.End a = new RawQpPingPong.End(rig.provider, "a", size);
                RawQpPingPong.End b = new RawQpPingPong.End(rig.provider, "b", size)) {
            a.connect(rig.b.get(0), b.ctx.udpPort(), b.qp.qpNum());
            b.connect(rig.a.get(0), a.ctx.udpPort(), a.qp.qpNum());
            return pingPong("raw QP", new RawSide(a), new RawSide(b), iterations, calls, 1);
        }
    }

    /** MP_SEND over the connection {@code c}: client c[0], server c[1]. */
    private static long[] mp(MultipathConnection[] c, int size, int iterations, long[] calls, int rxDepth)
            throws Exception {
        MpSide client = new MpSide(c[0], size);
        MpSide server = new MpSide(c[1], size);
        try {
            return pingPong("MP_SEND", client, server, iterations, calls, rxDepth);
        } finally {
            client.close();
            server.close();
        }
    }

    /**
     * The one thread's loop: the client sends, both ends are polled in turn until the server has
     * answered and the answer arrived (the timed span), then until both SENDs completed. Every
     * arrival must carry the round's sequence number. Each end keeps {@code rxDepth} receives posted
     * (the client posts its next one right before its SEND), never more than the arrivals to come, so
     * no receive is left posted at the end (an MP region is closed then).
     *
     * @param calls null, or where to add (after the warm-up) the nanoseconds of the server's posts of
     *     its answer [1] and of its polls that returned the arrival [0], timed one by one
     * @return round trips in nanoseconds, after a tenth of the iterations as warm-up
     */
    private static long[] pingPong(String system, Side client, Side server, int iterations, long[] calls,
            int rxDepth) throws Exception {
        int warm = iterations / 10;
        int total = warm + iterations;
        for (int i = 0; i < Math.min(rxDepth, total); i++) {
            server.postRecv();
        }
        for (int i = 0; i < Math.min(rxDepth - 1, total); i++) {
            client.postRecv();
        }
        long[] rt = new long[iterations];
        for (int i = 0; i < total; i++) {
            // the client's receive right before its SEND, as perftest's and latency-rounds' client
            // post theirs: a receive posted earlier is advertised by a duty cycle of its own
            if (i + rxDepth - 1 < total) {
                client.postRecv();
            }
            long t0 = System.nanoTime();
            client.send(i);
            long deadline = t0 + TIMEOUT_NANOS;
            boolean timeCalls = calls != null && i >= warm;
            while (client.recvs == 0) {
                long p0 = timeCalls ? System.nanoTime() : 0;
                server.poll();
                if (server.recvs > 0) {
                    if (timeCalls) {
                        calls[0] += System.nanoTime() - p0;
                    }
                    server.take(i, i + rxDepth < total);
                    long s0 = timeCalls ? System.nanoTime() : 0;
                    server.send(i);
                    if (timeCalls) {
                        calls[1] += System.nanoTime() - s0;
                    }
                }
                client.poll();
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException(system + ": no answer within 10 s");
                }
            }
            long t = System.nanoTime() - t0;
            client.take(i, false);
            while (client.sends == 0 || server.sends == 0) { // both SENDs' completions, outside the timed span
                client.poll();
                server.poll();
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException(system + ": no send completion within 10 s");
                }
            }
            client.sends--;
            server.sends--;
            if (i >= warm) {
                rt[i - warm] = t;
            }
        }
        return rt;
    }

    /** Datagrams both soft RNICs of a rig sent (their device counters), read through a context each. */
    private static final class Datagrams implements AutoCloseable {
        private final IbvContext a;
        private final IbvContext b;

        Datagrams(LatencyRig rig) throws Exception {
            a = rig.provider.openDevice("a");
            b = rig.provider.openDevice("b");
        }

        long count() {
            return a.counters().get(VerbsCounter.TX_PACKETS) + b.counters().get(VerbsCounter.TX_PACKETS);
        }

        @Override
        public void close() throws Exception {
            a.close();
            b.close();
        }
    }

    /** One end of a ping-pong as the loop sees it: its receives and send completions so far. */
    private abstract static class Side {
        int recvs;
        int sends;

        /** Posts a SEND of the message carrying {@code seq}. */
        abstract void send(long seq) throws Exception;

        abstract void postRecv() throws Exception;

        /** Polls once, adding to {@link #recvs} and {@link #sends}. */
        abstract void poll() throws Exception;

        /** @return the sequence number the last arrival carries */
        abstract long arrived();

        /** Takes the arrival of round {@code seq}, checks it, and posts the next receive if asked. */
        final void take(long seq, boolean repost) throws Exception {
            recvs--;
            long got = arrived();
            if (got != seq) {
                throw new IOException("arrival " + seq + " carries sequence " + got);
            }
            if (repost) {
                postRecv();
            }
        }
    }

    /** A raw QP end (send half and receive half of its buffer). */
    private static final class RawSide extends Side {
        final RawQpPingPong.End q;

        RawSide(RawQpPingPong.End q) {
            this.q = q;
        }

        @Override
        void send(long seq) throws Exception {
            q.buf.putLong(0, seq);
            q.postSend();
        }

        @Override
        void postRecv() throws Exception {
            q.postRecv();
        }

        @Override
        void poll() throws Exception {
            q.poll();
            recvs += q.recvs;
            sends += q.sends;
            q.recvs = 0;
            q.sends = 0;
        }

        @Override
        long arrived() {
            return q.buf.getLong(q.size);
        }
    }

    /** One end of the MP ping-pong: a region (send half, receive half). */
    private static final class MpSide extends Side {
        final MultipathConnection c;
        final int size;
        final ByteBuffer buf;
        final MemoryRegion region;
        final MpCompletion[] comps = {new MpCompletion(), new MpCompletion(), new MpCompletion(), new MpCompletion()};

        MpSide(MultipathConnection c, int size) throws Exception {
            this.c = c;
            this.size = size;
            buf = ByteBuffer.allocateDirect(2 * size);
            region = c.register(buf, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
        }

        @Override
        void send(long seq) throws Exception {
            buf.putLong(0, seq);
            c.postSend(2, region, 0, size);
        }

        @Override
        void postRecv() throws Exception {
            c.postRecv(3, region, size, size);
        }

        @Override
        long arrived() {
            return buf.getLong(size);
        }

        @Override
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
