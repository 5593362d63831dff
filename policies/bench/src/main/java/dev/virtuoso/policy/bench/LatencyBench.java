package dev.virtuoso.policy.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.policy.cc.fixed.FixedChunkPolicy;
import dev.virtuoso.policy.lb.adaptive.AdaptivePolicy;

/**
 * perftest-style ping-pong latency (half the round trip, as {@code ib_send_lat} reports it), p50,
 * p99 and p99.9, for message sizes 8 B, 4 KiB, 64 KiB and 1 MiB, of:
 * <ul>
 * <li>{@code tcp}: a TCP socket pair over loopback (blocking reads, TCP_NODELAY);</li>
 * <li>{@code qp}: one RC QP per side on the same soft RNIC, raw verbs SEND/RECV
 * ({@link RawQpPingPong});</li>
 * <li>{@code mp_send}: MP_SEND/MP_RECV over a multipath connection of 1 or 4 paths;</li>
 * <li>{@code mp_write_notify}: MP_WRITE into the peer's region, then, after its completion (every
 * byte placed), an 8-byte MP_SEND as the notice: what the API offers today for "write, then
 * tell".</li>
 * </ul>
 * Each side's application thread spins on {@code pollCompletions} (with {@link Thread#yield()})
 * as the raw QP side spins on its CQ, so the two differ only by the multipath layer. The
 * connection uses what the binding makes the default (lb-adaptive, cc-fixed) and the split
 * threshold given (default: ConnectOptions' own).
 *
 * <pre>
 * LatencyBench [both|fabric|udp] [ITERATIONS] [SPLIT_THRESHOLD]
 * </pre>
 * (default: both wires, 2000 iterations, ConnectOptions' split threshold). The UDP wire runs over
 * loopback addresses (127.0.1.i and 127.0.2.i) in one process, not over veth between namespaces.
 */
public final class LatencyBench {
    static final int[] SIZES = {8, 4096, 65536, 1 << 20};
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private LatencyBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 3 || (args.length > 0 && !List.of("both", "fabric", "udp").contains(args[0]))) {
            System.err.println("usage: LatencyBench [both|fabric|udp] [ITERATIONS] [SPLIT_THRESHOLD]");
            System.exit(2);
        }
        String which = args.length > 0 ? args[0] : "both";
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int threshold = args.length > 2 ? Integer.parseInt(args[2]) : ConnectOptions.builder().build().splitThreshold();
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "# latency (half round trip, us); %d iterations per row (1 MiB: %d), split threshold"
                + " %d B, load average at start %s%n", iterations, iters(iterations, 1 << 20), threshold, loadAverage());
        out.println("wire,system,paths,bytes,p50_us,p99_us,p999_us,samples");
        for (String wire : which.equals("both") ? List.of("fabric", "udp") : List.of(which)) {
            run(out, wire, iterations, threshold);
        }
        out.printf(Locale.ROOT, "# load average at the end %s%n", loadAverage());
    }

    private static void run(PrintStream out, String wire, int iterations, int threshold) throws Exception {
        boolean fabric = wire.equals("fabric");
        // TCP has no fabric: its rows are the kernel's loopback, repeated for each wire as a reference
        for (int size : SIZES) {
            report(out, wire, "tcp", 1, size, TcpPingPong.run(size, iters(iterations, size)));
        }
        try (LatencyRig rig = new LatencyRig(fabric, 1)) {
            for (int size : SIZES) {
                report(out, wire, "qp", 1, size, RawQpPingPong.run(rig, size, iters(iterations, size)));
            }
        }
        for (int paths : new int[] {1, 4}) {
            try (LatencyRig rig = new LatencyRig(fabric, paths)) {
                ConnectOptions o = ConnectOptions.builder().provider("soft").loadBalancer(AdaptivePolicy.NAME)
                        .congestionAvoidance(FixedChunkPolicy.NAME).splitThreshold(threshold).build();
                MultipathConnection[] c = rig.connect(o);
                for (int size : SIZES) {
                    report(out, wire, "mp_send", paths, size, mpPingPong(c, size, iters(iterations, size), false));
                }
                for (int size : SIZES) {
                    report(out, wire, "mp_write_notify", paths, size, mpPingPong(c, size, iters(iterations, size), true));
                }
            }
        }
    }

    /** Fewer round trips for 1 MiB (each is milliseconds), at least 200. */
    static int iters(int iterations, int size) {
        return size >= (1 << 20) ? Math.max(200, iterations / 10) : iterations;
    }

    static void report(PrintStream out, String wire, String system, int paths, int size, long[] halfRtt) {
        long[] s = halfRtt.clone();
        Arrays.sort(s);
        out.printf(Locale.ROOT, "%s,%s,%d,%d,%.1f,%.1f,%.1f,%d%n", wire, system, paths, size, pct(s, 0.50) / 1e3,
                pct(s, 0.99) / 1e3, pct(s, 0.999) / 1e3, s.length);
        out.flush();
    }

    static long pct(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    static String loadAverage() {
        try {
            return new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/loadavg"))).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * Ping-pong over a multipath connection; the server echoes on its own thread. Each message is
     * checked at its end (a sequence number in its last 8 bytes, or the notice's 8 bytes).
     *
     * @return half round trips in nanoseconds, after a tenth of the iterations as warm-up
     */
    static long[] mpPingPong(MultipathConnection[] c, int size, int iterations, boolean writeNotify) throws Exception {
        int warm = iterations / 10;
        int total = warm + iterations;
        Side client = new Side(c[0], size);
        Side server = new Side(c[1], size);
        client.exchange(server);
        server.exchange(client);
        // the echo side's receive is posted before the first message can arrive; every later one
        // right after an arrival, none after the last (a region is closed with no receive posted)
        server.postRecv(writeNotify);
        Thread echo = new Thread(() -> {
            try {
                for (int i = 0; i < total; i++) {
                    server.awaitArrival(i < total - 1, writeNotify);
                    server.sendTo(writeNotify, i);
                }
            } catch (Exception e) {
                server.failure = e;
            }
        }, "latency-bench-echo");
        echo.setDaemon(true);
        long[] samples = new long[iterations];
        try {
            echo.start();
            for (int i = 0; i < total; i++) {
                client.postRecv(writeNotify);
                long t0 = System.nanoTime();
                client.sendTo(writeNotify, i);
                client.awaitArrival(false, writeNotify);
                long t = System.nanoTime() - t0;
                if (i >= warm) {
                    samples[i - warm] = t / 2;
                }
            }
            echo.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS));
        } finally {
            echo.interrupt();
        }
        if (server.failure != null) {
            throw new IllegalStateException("echo side failed", server.failure);
        }
        client.close();
        server.close();
        return samples;
    }

    /** One side of the multipath ping-pong: a data region (send half, receive half) and a notice region. */
    private static final class Side {
        final MultipathConnection c;
        final int size;
        final MemoryRegion data;
        final MemoryRegion notice;
        final ByteBuffer dataBuf;
        final ByteBuffer noticeBuf;
        final MpCompletion[] comps = {new MpCompletion(), new MpCompletion(), new MpCompletion(), new MpCompletion()};
        RemoteMemory peerData;
        volatile Exception failure;

        Side(MultipathConnection c, int size) throws Exception {
            this.c = c;
            this.size = size;
            dataBuf = ByteBuffer.allocateDirect(2 * size);
            noticeBuf = ByteBuffer.allocateDirect(16);
            EnumSet<Access> all = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            data = c.register(dataBuf, all);
            notice = c.register(noticeBuf, all);
        }

        void exchange(Side peer) {
            peerData = peer.data.remote();
        }

        /** Sends the message (or writes it and sends the notice); waits for the send's completion. */
        void sendTo(boolean writeNotify, long seq) throws Exception {
            if (writeNotify) {
                dataBuf.putLong(size - 8 >= 0 ? size - 8 : 0, seq);
                c.postWrite(1, data, 0, size, peerData, size);
                await(MpOpcode.WRITE);
                noticeBuf.putLong(0, seq);
                c.postSend(2, notice, 0, 8);
            } else {
                dataBuf.putLong(Math.max(0, size - 8), seq);
                c.postSend(2, data, 0, size);
            }
            await(MpOpcode.SEND);
        }

        void postRecv(boolean writeNotify) throws Exception {
            if (writeNotify) {
                c.postRecv(3, notice, 8, 8);
            } else {
                c.postRecv(3, data, size, size);
            }
        }

        /** Waits for the message (or notice) whose receive is posted; then posts the next if asked. */
        void awaitArrival(boolean repost, boolean writeNotify) throws Exception {
            await(MpOpcode.RECV);
            if (repost) {
                postRecv(writeNotify);
            }
        }

        /** Completions seen and not yet awaited, by opcode (the peer's next message may overtake our SEND's). */
        private final int[] seen = new int[MpOpcode.values().length];

        /** Spins until a completion of {@code op} is there, counting the others for later. */
        private void await(MpOpcode op) throws Exception {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (seen[op.ordinal()] == 0) {
                int n = c.pollCompletions(comps);
                for (int i = 0; i < n; i++) {
                    if (!comps[i].ok()) {
                        throw new IOException("MP_" + comps[i].opcode() + " failed: " + comps[i].status());
                    }
                    seen[comps[i].opcode().ordinal()]++;
                }
                if (n == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("no " + op + " completion within 10 s");
                    }
                    Thread.yield();
                }
            }
            seen[op.ordinal()]--;
        }

        void close() {
            data.close();
            notice.close();
        }
    }

    /** TCP ping-pong over loopback: the kernel's latency for the same sizes. */
    static final class TcpPingPong {
        private TcpPingPong() {
        }

        static long[] run(int size, int iterations) throws Exception {
            int warm = iterations / 10;
            int total = warm + iterations;
            long[] samples = new long[iterations];
            try (ServerSocket ss = new ServerSocket()) {
                ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                ss.setSoTimeout(10_000);
                Thread echo = new Thread(() -> {
                    try (Socket s = ss.accept()) {
                        s.setTcpNoDelay(true);
                        s.setSoTimeout(10_000);
                        DataInputStream in = new DataInputStream(s.getInputStream());
                        DataOutputStream out = new DataOutputStream(s.getOutputStream());
                        byte[] buf = new byte[size];
                        for (int i = 0; i < total; i++) {
                            in.readFully(buf);
                            out.write(buf);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // the client reports the failure (its read times out)
                    }
                }, "latency-bench-tcp-echo");
                echo.setDaemon(true);
                echo.start();
                try (Socket s = new Socket()) {
                    s.connect(ss.getLocalSocketAddress(), 10_000);
                    s.setTcpNoDelay(true);
                    s.setSoTimeout(10_000);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    byte[] buf = new byte[size];
                    for (int i = 0; i < total; i++) {
                        long t0 = System.nanoTime();
                        out.write(buf);
                        out.flush();
                        in.readFully(buf);
                        long t = System.nanoTime() - t0;
                        if (i >= warm) {
                            samples[i - warm] = t / 2;
                        }
                    }
                }
                echo.join(10_000);
            }
            return samples;
        }
    }

}
