package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.commands.VirtuosoServices;

/**
 * The bench server: listens on the bootstrap port, accepts one client (and before it the client's
 * warm-up connections, whose HELLO says so: served alike, not reported), registers a region as
 * large as the client's largest size, answers READY with it and then serves: for SEND it keeps
 * receive buffers posted and counts the messages, for WRITE and READ it waits for DONE (or the
 * client going away).
 */
final class BenchServer {
    /** Warm-up connections served before a measured one at most (a client that never measures ends it). */
    static final int MAX_WARMUP_CONNECTIONS = 16;

    private BenchServer() {
    }

    static void run(VirtuosoServices services, BenchOptions o, PrintStream out) throws IOException, InterruptedException {
        try (BenchEndpoint e = BenchEndpoint.prepare(services, o);
                MultipathListener listener = services.connector(10, TimeUnit.SECONDS)
                        .listen(o.listenAddress(e.vnics), e.options)) {
            if (!listener.localAddress().getAddress().isLoopbackAddress() && o.secret() == null) {
                out.println("warning: listening on " + listener.localAddress() + " without --secret-file: unless "
                        + "the connector's secretFile is configured, any host that reaches it can connect (docs/security.md)");
            }
            out.println("waiting for a client on " + listener.localAddress() + " (vNICs "
                    + e.vnics.stream().map(a -> a.getHostAddress()).toList() + ", up to " + o.waitSeconds() + " s)");
            // the client's warm-up connections (its HELLO says so) are served alike, nothing reported
            for (int warmups = 0; !serveOne(listener.accept(o.waitSeconds(), TimeUnit.SECONDS), o, e, out); warmups++) {
                e.detach();
                if (warmups + 1 >= MAX_WARMUP_CONNECTIONS) {
                    throw new IOException(MAX_WARMUP_CONNECTIONS + " warm-up connections and no measured one");
                }
            }
        }
    }

    /**
     * One client's connection, until its DONE.
     *
     * @return false if it was a warm-up (nothing printed or written)
     */
    private static boolean serveOne(MultipathConnection c, BenchOptions o, BenchEndpoint e, PrintStream out)
            throws IOException, InterruptedException {
        if (c == null) {
            throw new IOException("no client connected within " + o.waitSeconds() + " s");
        }
        e.attach(c);
        c.postRecv(1, e.control, BenchEndpoint.RECV_HALF, BenchEndpoint.RECV_HALF);
        MpCompletion hello = e.awaitControl(MpOpcode.RECV);
        CpuUsage.Snapshot cpuStart = CpuUsage.Snapshot.now();
        long start = System.nanoTime();
        BenchProtocol.Hello h = BenchProtocol.readHello(e.incoming(), (int) hello.byteLength());
        int max = h.sizes().stream().mapToInt(Integer::intValue).max().orElse(1);
        e.attachData(h.latency() ? 2 * max : max); // latency: a half to receive into while the other is sent
        long expected = h.totalMessages();
        int rxDepth = (int) Math.min(expected, Math.max(32, 2L * o.txDepth()));
        // the HELLO carries the client's region for the WRITE test only (null: the SEND test)
        LatencyPingPong pingPong = h.latency() ? new LatencyPingPong(e, max, h.rxDepth(), h.region()) : null;
        if (pingPong != null) {
            pingPong.postFirstReceives(expected);
        } else if (h.op() == BenchOptions.Op.SEND) {
            for (int i = 0; i < rxDepth; i++) {
                c.postRecv(100 + i, e.data, 0, max);
            }
        } else {
            c.postRecv(2, e.control, BenchEndpoint.RECV_HALF, BenchEndpoint.RECV_HALF);
        }
        c.postSend(3, e.control, BenchEndpoint.SEND_HALF, BenchProtocol.writeReady(e.outgoing(), e.data.remote()));
        BenchOptions shown = o.asServerOf(h.op(), h.sizes(), h.latency(), h.rxDepth(), e.vnics);
        if (!h.warmup()) {
            BenchReport.header(out, shown, e, c.remoteBootstrapAddress().toString());
        }
        long received = pingPong != null ? answer(pingPong, h, max, expected, e) : serve(c, h, expected, rxDepth, max, e);
        CpuUsage cpu = cpuStart.until(CpuUsage.Snapshot.now());
        double seconds = (System.nanoTime() - start) / 1e9;
        if (h.op() == BenchOptions.Op.SEND && !h.latency()) {
            c.postSend(5, e.control, BenchEndpoint.SEND_HALF, BenchProtocol.writeDone(e.outgoing()));
            e.awaitControl(MpOpcode.SEND);
        }
        if (h.warmup()) {
            return false;
        }
        if (h.latency()) {
            out.printf(Locale.ROOT, " served the %s latency test: %d message(s) answered; sizes %s x iterations %s%n",
                    h.op().title(), received, h.sizes(), h.iterations());
        } else if (h.op() == BenchOptions.Op.SEND) {
            out.printf(Locale.ROOT, " served %s: %d message(s) received; sizes %s x iterations %s%n", h.op().title(),
                    received, h.sizes(), h.iterations());
        } else {
            out.printf(Locale.ROOT, " served %s until the client's DONE; sizes %s x iterations %s%n", h.op().title(),
                    h.sizes(), h.iterations());
        }
        out.printf(Locale.ROOT, " CPU from HELLO to DONE (%.3f s): process %.3f s, virtuoso threads %.3f s (%s)%n", seconds,
                cpu.processSeconds(), cpu.virtuosoSeconds(), cpu.rolesText());
        out.println(BenchReport.RULE);
        if (o.jsonFile() != null) {
            BenchReport.writeJson(o.jsonFile(), BenchReport.serverJson(shown, e, seconds, cpu));
        }
        return true;
    }

    /** The latency test: answers every message, then waits for the client's DONE; returns the messages. */
    private static long answer(LatencyPingPong pingPong, BenchProtocol.Hello h, int max, long expected,
            BenchEndpoint e) throws IOException, InterruptedException {
        if (h.op() == BenchOptions.Op.WRITE && h.region().length() < 2L * max) {
            throw new IOException("the client's region has " + h.region().length() + " bytes, too few for its sizes");
        }
        pingPong.answer(expected);
        // posted only now: MP_RECVs are matched in order, and every message before DONE was an answer's
        e.connection.postRecv(2, e.control, BenchEndpoint.RECV_HALF, BenchEndpoint.RECV_HALF);
        MpCompletion done = e.awaitControl(null);
        while (done.opcode() != MpOpcode.RECV) {
            done = e.awaitControl(null); // the READY's send completion, if it came this late
        }
        BenchProtocol.readDone(e.incoming(), (int) done.byteLength());
        return expected;
    }

    /** Serves until DONE (WRITE, READ) or every message (SEND); returns the messages received. */
    private static long serve(MultipathConnection c, BenchProtocol.Hello h, long expected, int rxDepth, int max,
            BenchEndpoint e) throws IOException, InterruptedException {
        MpCompletion one = new MpCompletion();
        long received = 0;
        long posted = h.op() == BenchOptions.Op.SEND ? rxDepth : 0;
        boolean done = false;
        long idleSince = System.nanoTime();
        while (!done) {
            if (!c.awaitCompletion(one, 1, TimeUnit.SECONDS)) {
                ConnectionState s = c.state();
                if (s != ConnectionState.ESTABLISHED) {
                    throw new IOException("the client went away (connection " + s + ") after " + received + " messages");
                }
                if (h.op() == BenchOptions.Op.SEND
                        && System.nanoTime() - idleSince > TimeUnit.SECONDS.toNanos(BenchEndpoint.COMPLETION_TIMEOUT_SECONDS)) {
                    throw new IOException("no message for " + BenchEndpoint.COMPLETION_TIMEOUT_SECONDS + " s after "
                            + received + " of " + expected);
                }
                continue;
            }
            idleSince = System.nanoTime();
            if (!one.ok()) {
                throw new IOException("MP_" + one.opcode() + " failed: " + one.status()
                        + (one.detail() != null ? " (" + one.detail() + ")" : "") + "; "
                        + BenchClient.pathSummary(c.pathStats()));
            }
            if (one.opcode() != MpOpcode.RECV) {
                continue; // the READY's send completion
            }
            if (h.op() == BenchOptions.Op.SEND) {
                received++;
                if (posted < expected) {
                    c.postRecv(100 + posted, e.data, 0, max);
                    posted++;
                }
                done = received == expected;
            } else {
                BenchProtocol.readDone(e.incoming(), (int) one.byteLength());
                done = true;
            }
        }
        return received;
    }
}
