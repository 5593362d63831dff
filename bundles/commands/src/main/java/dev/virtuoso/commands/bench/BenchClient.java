package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.commands.VirtuosoServices;
import dev.virtuoso.commands.cli.CommandError;

/**
 * The bench client: connects to the server, says what it will run (HELLO), learns the server's
 * region (READY), then for every size posts the iterations with {@code tx-depth} outstanding and
 * times each completion; ends with DONE. Prints the perftest-style table or JSON.
 */
final class BenchClient {

    private BenchClient() {
    }

    static List<BenchResult> run(VirtuosoServices services, BenchOptions o, PrintStream out)
            throws IOException, InterruptedException {
        try (BenchEndpoint e = BenchEndpoint.prepare(services, o)) {
            InetSocketAddress server = new InetSocketAddress(o.host(), o.port());
            if (server.isUnresolved()) {
                throw new CommandError("cannot resolve host '" + o.host() + "'");
            }
            e.awaitPolicies(services);
            if (o.warmup() > 0) {
                // the same run on a connection of its own, not measured: the JVM is warm, the
                // measured connection's policies (chunk probe, load balancer) start afresh
                run(services, o.warmupRun(), e, server, null);
                e.detach();
            }
            return run(services, o, e, server, out);
        }
    }

    /** One connection's run; {@code out == null}: a warm-up, nothing printed or written. */
    private static List<BenchResult> run(VirtuosoServices services, BenchOptions o, BenchEndpoint e,
            InetSocketAddress server, PrintStream out) throws IOException, InterruptedException {
        List<BenchResult> rows = new ArrayList<>();
        boolean report = out != null;
        MultipathConnection c = services.connector(10, TimeUnit.SECONDS).connect(server, e.options);
        e.attach(c);
        e.attachData(o.latency() ? 2 * o.maxSize() : o.maxSize()); // latency: a half to send, one to receive
        List<Integer> iters = new ArrayList<>();
        for (int s : o.sizes()) {
            iters.add(o.iterationsFor(s));
        }
        c.postRecv(1, e.control, BenchEndpoint.RECV_HALF, BenchEndpoint.RECV_HALF);
        // the WRITE latency test's answers are written into the second half of this side's region
        int len = BenchProtocol.writeHello(e.outgoing(), new BenchProtocol.Hello(o.op(), o.sizes(), iters, !report,
                o.latency(), o.latency() && o.op() == BenchOptions.Op.WRITE ? e.data.remote() : null, o.rxDepth()));
        c.postSend(2, e.control, BenchEndpoint.SEND_HALF, len);
        long readyLength = awaitSendAndRecv(e);
        RemoteMemory region = BenchProtocol.readReady(e.incoming(), (int) readyLength);
        if (region.length() < o.maxSize()) {
            throw new IOException("the server's region has " + region.length() + " bytes, " + o.maxSize() + " needed");
        }
        if (o.latency()) {
            latency(o, e, server, region, iters, out);
            return rows;
        }
        if (o.op() == BenchOptions.Op.SEND) {
            c.postRecv(4, e.control, BenchEndpoint.RECV_HALF, BenchEndpoint.RECV_HALF);
        }
        if (report && !o.json()) {
            BenchReport.header(out, o, e, server.toString());
            BenchReport.tableHead(out, o);
        }
        for (int i = 0; i < o.sizes().size(); i++) {
            BenchResult r = measure(o, e, region, o.sizes().get(i), iters.get(i));
            rows.add(r);
            if (report && !o.json()) {
                BenchReport.row(out, r);
            }
        }
        List<ChunkStatsReader.PathChunks> chunks = ChunkStatsReader.POLICY.equals(e.options.congestionAvoidance())
                ? ChunkStatsReader.read(services.bundleContext(), c.id()) : List.of();
        if (o.op() == BenchOptions.Op.SEND) {
            // the server says DONE once every message is in: closing earlier would flush its receives
            MpCompletion done = e.awaitControl(MpOpcode.RECV);
            BenchProtocol.readDone(e.incoming(), (int) done.byteLength());
        } else {
            c.postSend(3, e.control, BenchEndpoint.SEND_HALF, BenchProtocol.writeDone(e.outgoing()));
            e.awaitControl(MpOpcode.SEND);
        }
        if (!report) {
            return rows;
        }
        String json = BenchReport.json(o, e, rows, chunks, DefaultPolicyNames.read(services.bundleContext()));
        if (o.json()) {
            out.print(json);
        } else {
            out.println(BenchReport.RULE);
            BenchReport.cpuAndChunks(out, rows, chunks);
        }
        if (o.jsonFile() != null) {
            BenchReport.writeJson(o.jsonFile(), json);
        }
        return rows;
    }

    /**
     * The latency test's sizes, then DONE (the server answers every message, so no receive for its
     * DONE may be posted before the last answer: MP_RECVs are matched in order).
     */
    private static void latency(BenchOptions o, BenchEndpoint e, InetSocketAddress server, RemoteMemory region,
            List<Integer> iters, PrintStream out) throws IOException, InterruptedException {
        boolean report = out != null;
        if (report && !o.json()) {
            BenchReport.header(out, o, e, server.toString());
            LatencyReport.tableHead(out);
        }
        boolean write = o.op() == BenchOptions.Op.WRITE;
        LatencyPingPong pingPong = new LatencyPingPong(e, o.maxSize(), o.rxDepth(), write ? region : null);
        List<LatencyResult> rows = new ArrayList<>();
        for (int i = 0; i < o.sizes().size(); i++) {
            int size = o.sizes().get(i);
            LatencyResult r = LatencyResult.of(size, pingPong.measure(size, iters.get(i)));
            rows.add(r);
            if (report && !o.json()) {
                LatencyReport.row(out, r);
            }
        }
        e.connection.postSend(3, e.control, BenchEndpoint.SEND_HALF, BenchProtocol.writeDone(e.outgoing()));
        e.awaitControl(MpOpcode.SEND);
        if (!report) {
            return;
        }
        String json = LatencyReport.json(o, e, rows);
        if (o.json()) {
            out.print(json);
        } else {
            out.println(BenchReport.RULE);
        }
        if (o.jsonFile() != null) {
            BenchReport.writeJson(o.jsonFile(), json);
        }
    }

    /** Waits for the HELLO's send completion and the READY's receive; returns the READY's length. */
    private static long awaitSendAndRecv(BenchEndpoint e) throws IOException, InterruptedException {
        boolean sent = false;
        long received = -1;
        while (!sent || received < 0) {
            MpCompletion c = e.awaitControl(null);
            if (c.opcode() == MpOpcode.SEND) {
                sent = true;
            } else if (c.opcode() == MpOpcode.RECV) {
                received = c.byteLength();
            }
        }
        return received;
    }

    private static BenchResult measure(BenchOptions o, BenchEndpoint e, RemoteMemory region, int size, int n)
            throws IOException, InterruptedException {
        MultipathConnection c = e.connection;
        long[] times = new long[n];
        // per-message times only with --fct (bounded by MAX_FCT_MESSAGES): wrId = message number
        long[] postedAt = o.perMessage() ? new long[n] : null;
        long[] completedAt = o.perMessage() ? new long[n] : null;
        MpCompletion[] comps = new MpCompletion[32];
        for (int i = 0; i < comps.length; i++) {
            comps[i] = new MpCompletion();
        }
        MpCompletion one = new MpCompletion();
        int posted = 0;
        int done = 0;
        CpuUsage.Snapshot cpuStart = CpuUsage.Snapshot.now();
        long startEpochMillis = System.currentTimeMillis();
        long start = System.nanoTime();
        long last = start;
        // a wait returns at the next completion; only pacing needs an earlier wake-up (each wait
        // spins briefly before it blocks: waking every millisecond spun 5% of a core on a slow link)
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(100);
        while (done < n) {
            long now = System.nanoTime();
            while (posted < n && posted - done < o.txDepth() && now - start >= o.postOffsetNanos(size, posted)) {
                try {
                    switch (o.op()) {
                        case WRITE -> c.postWrite(posted, e.data, 0, size, region, 0);
                        case READ -> c.postRead(posted, e.data, 0, size, region, 0);
                        case SEND -> c.postSend(posted, e.data, 0, size);
                    }
                } catch (VirtuosoException x) {
                    if (x.reason() == VirtuosoException.Reason.QUEUE_FULL) {
                        break;
                    }
                    throw x;
                }
                if (postedAt != null) {
                    postedAt[posted] = now;
                }
                posted++;
            }
            int k = c.pollCompletions(comps);
            if (k == 0) {
                // wait for a completion, but when pacing holds back a post, no longer than until it is due
                long wait = waitNanos;
                if (o.rateBitsPerSecond() > 0 && posted < n && posted - done < o.txDepth()) {
                    long due = start + o.postOffsetNanos(size, posted) - System.nanoTime();
                    wait = Math.max(1_000, Math.min(waitNanos, due));
                }
                if (c.awaitCompletion(one, wait, TimeUnit.NANOSECONDS)) {
                    comps[0].copyFrom(one);
                    k = 1;
                }
            }
            now = System.nanoTime();
            for (int i = 0; i < k; i++) {
                if (!comps[i].ok()) {
                    throw new IOException("MP_" + comps[i].opcode() + " of " + size + " bytes failed: " + comps[i].status()
                            + (comps[i].detail() != null ? " (" + comps[i].detail() + ")" : "") + "; "
                            + pathSummary(c.pathStats()));
                }
                if (completedAt != null) {
                    long id = comps[i].wrId();
                    if (id < 0 || id >= n) {
                        throw new IOException("completion of an unknown message: " + comps[i]);
                    }
                    completedAt[(int) id] = now;
                }
                times[done++] = now;
                last = now;
            }
            boolean pacedGap = posted == done && posted < n;
            if (!pacedGap && now - last > TimeUnit.SECONDS.toNanos(BenchEndpoint.COMPLETION_TIMEOUT_SECONDS)) {
                throw new IOException("no completion for " + BenchEndpoint.COMPLETION_TIMEOUT_SECONDS + " s at size "
                        + size + " (" + done + " of " + n + " done)");
            }
            if (pacedGap) {
                last = now; // nothing outstanding while pacing: no completion is due
            }
        }
        CpuUsage cpu = cpuStart.until(CpuUsage.Snapshot.now());
        double[] fct = new double[postedAt == null ? 0 : n];
        double[] postedSeconds = new double[fct.length];
        for (int i = 0; i < fct.length; i++) {
            fct[i] = (completedAt[i] - postedAt[i]) / 1e9;
            postedSeconds[i] = (postedAt[i] - start) / 1e9;
        }
        return BenchResult.of(o, size, start, times, cpu, fct, postedSeconds, startEpochMillis);
    }

    /** @return each path's state, failed chunks and retransmissions, for an error message */
    static String pathSummary(List<PathStats> paths) {
        StringBuilder b = new StringBuilder("paths:");
        for (PathStats p : paths) {
            b.append(' ').append(p.pathId()).append('=').append(p.state()).append(" (").append(p.chunksCompleted())
                    .append(" chunks done, ").append(p.chunksFailed()).append(" failed, ").append(p.retransmissions())
                    .append(" retransmissions)");
        }
        return b.toString();
    }
}
