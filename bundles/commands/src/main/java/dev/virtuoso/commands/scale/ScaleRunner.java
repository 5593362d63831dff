package dev.virtuoso.commands.scale;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.commands.SoftProviderConfig;
import dev.virtuoso.commands.VirtuosoServices;
import dev.virtuoso.commands.bench.CpuUsage;

/**
 * The scale bench: for each connection count N, opens N multipath connections between two
 * endpoints of this process (one after the other, each timed), moves and verifies
 * {@code bytes} on each with one driving thread, then closes them; reports goodput, CPU per GiB,
 * threads, peak RSS, memory and setup cost per connection, and {@code iperf3 -P N} on loopback
 * beside it. Both ends run in this process, so every per-connection figure covers both ends.
 */
public final class ScaleRunner {
    private static final String CLIENT = "scaleA";
    private static final String SERVER = "scaleB";
    private static final long STALL_SECONDS = 60;
    /** Setup progress goes to stderr every this many connections. */
    private static final int PROGRESS_EVERY = 128;
    /** Threads that close the connections at the end of a run. */
    private static final int CLOSERS = 4;

    private ScaleRunner() {
    }

    /**
     * @param services the commands' services
     * @param o the options
     * @param out where the report goes
     * @return one result per count
     * @throws IOException if a run fails
     * @throws InterruptedException if interrupted
     */
    public static List<ScaleResult> run(VirtuosoServices services, ScaleOptions o, PrintStream out)
            throws IOException, InterruptedException {
        List<InetAddress> clientVnics = new ArrayList<>();
        List<InetAddress> serverVnics = new ArrayList<>();
        for (int i = 1; i <= o.paths(); i++) {
            clientVnics.add(address(o.wire().equals("udp") ? "127.0.2." + i : "192.0.2." + i));
            serverVnics.add(address(o.wire().equals("udp") ? "127.0.1." + i : "198.51.100." + i));
        }
        List<ScaleResult> results = new ArrayList<>();
        out.printf(Locale.ROOT, "scale bench: %s wire, %d path(s) per connection, %s per connection in MP_SENDs of %d B, "
                + "depth %d, max outstanding %d, every byte verified; both ends in this process (%d CPUs); the "
                + "application's buffers (%s per connection) are allocated before the setup and not counted in it%n",
                o.wire(), o.paths(), human(o.bytesPerConnection()), o.messageSize(), o.depth(), o.outstandingPerEnd(),
                Runtime.getRuntime().availableProcessors(), human(o.applicationBytesPerConnection()));
        out.println(ScaleReport.HEADER);
        try (SoftProviderConfig soft = configure(services, o, clientVnics, serverVnics)) {
            MultipathConnector connector = services.connector(10, TimeUnit.SECONDS);
            ConnectOptions.Builder b = ConnectOptions.builder().provider(SoftProviderConfig.PROVIDER)
                    .handshakeTimeout(Duration.ofSeconds(30)).maxOutstanding(o.outstandingPerEnd());
            if (o.slots() > 0) {
                b.smallMessageSlots(o.slots());
            }
            if (o.slotBytes() > 0) {
                b.smallMessageSlotBytes(o.slotBytes());
            }
            o.properties().forEach(b::policyProperty);
            ConnectOptions base = b.build();
            ByteBuffer pattern = ScalePair.pattern(o.messageSize());
            for (int n : o.counts()) {
                ScaleResult r = runOne(connector, base, o, n, clientVnics, serverVnics, pattern);
                r = withIperf(r, o, n);
                results.add(r);
                out.println(ScaleReport.row(r));
                out.println("        setup CPU of " + n + ": " + r.setupCpuByThread());
                out.println("        transfer CPU of " + n + ": " + r.transferCpuByThread());
            }
        }
        if (o.csv() != null) {
            StringBuilder b = new StringBuilder(ScaleResult.CSV_HEADER).append('\n');
            results.forEach(r -> b.append(r.csv()).append('\n'));
            Files.writeString(Path.of(o.csv()), b.toString());
        }
        return results;
    }

    private static SoftProviderConfig configure(VirtuosoServices services, ScaleOptions o, List<InetAddress> c,
            List<InetAddress> s) throws IOException, InterruptedException {
        if (o.wire().equals("udp")) {
            return SoftProviderConfig.udp(services, List.of(CLIENT + "=" + join(c), SERVER + "=" + join(s)), o.udpPort());
        }
        // unlimited links between the two hosts: the fabric's own cost, no rate limit
        String spec = CLIENT + "=" + join(c) + " " + SERVER + "=" + join(s) + "\nlink " + CLIENT + "-" + SERVER + "\n";
        return SoftProviderConfig.fabric(services, spec, Set.of(CLIENT, SERVER));
    }

    private static ScaleResult runOne(MultipathConnector connector, ConnectOptions base, ScaleOptions o, int n,
            List<InetAddress> clientVnics, List<InetAddress> serverVnics, ByteBuffer pattern)
            throws IOException, InterruptedException {
        ConnectOptions serverOptions = base.toBuilder().device(SERVER).localAddresses(serverVnics).build();
        ConnectOptions clientOptions = base.toBuilder().device(CLIENT).localAddresses(clientVnics)
                .remoteAddresses(serverVnics).build();
        List<ScalePair> pairs = new ArrayList<>(n);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<ByteBuffer[]> buffers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            buffers.add(ScalePair.buffers(i, pattern, o.messageSize(), o.depth()));
        }
        try (MultipathListener listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                serverOptions)) {
            ProcessStats before = ProcessStats.afterGc();
            ProcessStats.resetPeak();
            CpuUsage.Snapshot setupThreads = CpuUsage.Snapshot.now();
            long setupStart = System.nanoTime();
            ProcessStats half = before;
            for (int i = 0; i < n; i++) {
                if (i == n / 2) {
                    half = ProcessStats.now();
                }
                if (i > 0 && i % PROGRESS_EVERY == 0) {
                    System.err.printf(Locale.ROOT, "scale: %d of %d connected (%.1f s)%n", i, n,
                            (System.nanoTime() - setupStart) / 1e9);
                }
                MultipathConnection client = connector.connect(listener.localAddress(), clientOptions);
                MultipathConnection server;
                try {
                    server = listener.accept(30, TimeUnit.SECONDS);
                } catch (RuntimeException | IOException e) {
                    client.close();
                    throw e;
                }
                if (server == null) {
                    client.close();
                    throw new IOException("connection " + i + " was not accepted within 30 s");
                }
                pairs.add(new ScalePair(i, client, server, pattern, buffers.set(i, null), o.messageSize(), o.depth(),
                        o.messages()));
            }
            long setupWall = System.nanoTime() - setupStart;
            ProcessStats established = ProcessStats.now();
            CpuUsage setupRoles = setupThreads.until(CpuUsage.Snapshot.now());
            ProcessStats settled = ProcessStats.afterGc();
            MpCompletion[] comps = new MpCompletion[32];
            for (int i = 0; i < comps.length; i++) {
                comps[i] = new MpCompletion();
            }
            CpuUsage.Snapshot transferThreads = CpuUsage.Snapshot.now();
            long benchCpu0 = mx.getCurrentThreadCpuTime();
            ProcessStats t0 = ProcessStats.now();
            long start = System.nanoTime();
            int maxThreads = Math.max(established.threads(), t0.threads());
            long lastProgress = start;
            int remaining = n;
            boolean[] finished = new boolean[n];
            long sweeps = 0;
            while (remaining > 0) {
                boolean progress = false;
                for (int i = 0; i < n; i++) {
                    if (finished[i]) {
                        continue;
                    }
                    ScalePair p = pairs.get(i);
                    progress |= p.step(comps);
                    if (p.done()) {
                        finished[i] = true;
                        remaining--;
                    }
                }
                long now = System.nanoTime();
                if (progress) {
                    lastProgress = now;
                } else {
                    if (now - lastProgress > TimeUnit.SECONDS.toNanos(STALL_SECONDS)) {
                        throw new IOException("no progress for " + STALL_SECONDS + " s with " + remaining + " of " + n
                                + " connections unfinished");
                    }
                    LockSupport.parkNanos(50_000); // nothing to do: let the engines run
                }
                if ((++sweeps & 1023) == 0) {
                    maxThreads = Math.max(maxThreads, mx.getThreadCount());
                }
            }
            long seconds0 = System.nanoTime() - start;
            ProcessStats t1 = ProcessStats.now();
            long benchCpu = mx.getCurrentThreadCpuTime() - benchCpu0;
            CpuUsage transferRoles = transferThreads.until(CpuUsage.Snapshot.now());
            maxThreads = Math.max(maxThreads, t1.threads());
            double gib = (double) n * o.bytesPerConnection() / (1L << 30);
            double seconds = seconds0 / 1e9;
            return new ScaleResult(n, o.paths(), gib, seconds, n * o.bytesPerConnection() * 8 / seconds / 1e9,
                    (t1.cpuNanos() - t0.cpuNanos()) / 1e9 / gib, benchCpu / 1e9 / gib, before.threads(), maxThreads,
                    Math.max(t1.peakRssBytes(), established.peakRssBytes()) / 1e6,
                    (established.rssBytes() - before.rssBytes()) / (double) n / 1024,
                    (settled.heapUsedBytes() - before.heapUsedBytes()) / (double) n / 1024,
                    (settled.directBytes() - before.directBytes()) / (double) n / 1024,
                    (established.cpuNanos() - before.cpuNanos()) / 1e6 / n,
                    (established.cpuNanos() - half.cpuNanos()) / 1e6 / (n - n / 2), setupWall / 1e6 / n, -1, -1, "",
                    String.format(Locale.ROOT, "process %.3f s, caller %.3f s, virtuoso threads: %s", setupRoles.processSeconds(),
                            setupRoles.benchThreadSeconds(), setupRoles.rolesText()),
                    ScaleResult.transferText(transferRoles, gib, n * o.messages()));
        } catch (IOException | RuntimeException e) {
            // said at once: closing many connections takes a while
            System.err.println("scale: the run of " + n + " failed with " + pairs.size() + " connected: " + e);
            throw e;
        } finally {
            closeAll(pairs);
        }
    }

    /** Closes the pairs from a few threads (each disconnect waits for its engines). */
    private static void closeAll(List<ScalePair> pairs) throws InterruptedException {
        int threads = Math.min(CLOSERS, Math.max(1, pairs.size()));
        AtomicInteger next = new AtomicInteger();
        List<Thread> closers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread c = new Thread(() -> {
                int i;
                while ((i = next.getAndIncrement()) < pairs.size()) {
                    pairs.get(i).close();
                }
            }, "scale-close-" + t);
            c.setDaemon(true);
            c.start();
            closers.add(c);
        }
        // a pair's close is bounded (two 5 s disconnects); the run's, by the pairs per closer
        long waitNanos = TimeUnit.SECONDS.toNanos(15L * (pairs.size() / threads + 1));
        long deadline = System.nanoTime() + waitNanos;
        for (Thread c : closers) {
            c.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (c.isAlive()) {
                throw new IllegalStateException("scale: connections still closing after "
                        + TimeUnit.NANOSECONDS.toSeconds(waitNanos) + " s (" + c.getName() + ")");
            }
        }
    }

    private static ScaleResult withIperf(ScaleResult r, ScaleOptions o, int n) throws InterruptedException {
        if (!o.iperf()) {
            return r.withIperf(-1, -1, "not run (--no-iperf)");
        }
        if (n > IperfRun.MAX_STREAMS) {
            return r.withIperf(-1, -1, "iperf3 allows at most " + IperfRun.MAX_STREAMS + " streams");
        }
        try {
            IperfRun i = IperfRun.run(n, n * o.bytesPerConnection(), o.iperfPort());
            return r.withIperf(i.gbits(), i.cpuSeconds() / r.gib(), "");
        } catch (IOException e) {
            return r.withIperf(-1, -1, "iperf3: " + e.getMessage());
        }
    }

    private static String join(List<InetAddress> a) {
        return String.join(",", a.stream().map(InetAddress::getHostAddress).toList());
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // a literal is never looked up
        }
    }

    static String human(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return bytes / (1L << 30) + " GiB";
        }
        return bytes % (1 << 20) == 0 ? bytes / (1 << 20) + " MiB" : bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " B";
    }
}
