package dev.virtuoso.policy.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.pathmonitor.internal.PathMonitorService;
import dev.virtuoso.policy.bench.ThreadCpu.Part;
import dev.virtuoso.policy.cc.chunkprobe.ChunkProbePolicy;
import dev.virtuoso.policy.cc.fixed.FixedChunkPolicy;
import dev.virtuoso.policy.lb.adaptive.AdaptivePolicy;
import dev.virtuoso.policy.lb.proportional.ProportionalPolicy;
import dev.virtuoso.policy.lb.roundrobin.RoundRobinPolicy;
import dev.virtuoso.policy.lb.single.SinglePathPolicy;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Fig. 8 as the paper measured it, on the in-process fabric: the CPU time of the multipath layer
 * (the engine agents) apart from the soft RNIC's and the control threads', per MiB moved, against
 * paths and message size ({@code fig8-cpu}); and the CPU cost of open, quiet connections
 * ({@code fig8-idle}). Default connection options and policies; the engine group of the product's
 * default size; the application waits for completions with {@code awaitCompletion} (no polling).
 */
final class Fig8Bench {
    static final int[] PATHS = {1, 2, 4, 8};
    static final int[] MESSAGE_BYTES = {64 << 10, 1 << 20, 16 << 20};
    static final int[] IDLE_CONNECTIONS = {0, 1, 16, 64};
    /** Bytes outstanding the window aims at (at least 2 messages, at most 16). */
    private static final long WINDOW_BYTES = 16L << 20;
    private static final String LINK = "rate=unlimited delay=50us";

    private Fig8Bench() {
    }

    /** Two soft RNICs on one fabric with {@code paths} links, one connector on an engine group. */
    static final class Rig implements AutoCloseable {
        final FabricNetwork network = new FabricNetwork("fig8", 1);
        final SoftVerbsProvider provider;
        final EngineGroup engines = new EngineGroup(EngineGroup.defaultSize());
        final Connector connector;
        final MultipathListener listener;
        final List<MultipathConnection> ends = new ArrayList<>();

        Rig(int paths) throws Exception {
            List<InetAddress> a = new ArrayList<>();
            List<InetAddress> b = new ArrayList<>();
            for (int i = 0; i < paths; i++) {
                a.add(InetAddress.getByName("10.8." + (i + 1) + ".1"));
                b.add(InetAddress.getByName("10.8." + (i + 1) + ".2"));
            }
            network.addHost("a", a.toArray(new InetAddress[0]));
            network.addHost("b", b.toArray(new InetAddress[0]));
            for (int i = 0; i < paths; i++) {
                network.link(a.get(i), b.get(i), LinkSpec.parse(LINK));
            }
            provider = new SoftVerbsProvider(SoftRnicConfig.builder("a").addresses(a).fabric(network, "a").build(),
                    SoftRnicConfig.builder("b").addresses(b).fabric(network, "b").build());
            PolicyRegistry policies = new PolicyRegistry();
            ProportionalPolicy proportional = new ProportionalPolicy();
            FixedChunkPolicy fixed = new FixedChunkPolicy();
            // what the policy binding publishes as "default" with the shipped ranks (docs/policies.md)
            policies.add(ConnectOptions.DEFAULT_POLICY, proportional);
            policies.add(ConnectOptions.DEFAULT_POLICY, fixed);
            policies.add(AdaptivePolicy.NAME, new AdaptivePolicy());
            policies.add(ProportionalPolicy.NAME, proportional);
            policies.add(RoundRobinPolicy.NAME, new RoundRobinPolicy());
            policies.add(SinglePathPolicy.NAME, new SinglePathPolicy());
            policies.add(FixedChunkPolicy.NAME, fixed);
            policies.add(ChunkProbePolicy.NAME, new ChunkProbePolicy());
            connector = new Connector(n -> provider, new DecomposerComponent(), new ReassemblerComponent(), policies,
                    CoreSettings.DEFAULTS, engines);
            connector.pathMonitors(new PathMonitorService());
            listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    options().device("b").build());
        }

        static ConnectOptions.Builder options() {
            return ConnectOptions.builder().handshakeTimeout(Duration.ofSeconds(30));
        }

        /** @return a new connection's two ends, client (device a) first */
        MultipathConnection[] connect() throws Exception {
            MultipathConnection c = connector.connect(listener.localAddress(), options().device("a").build());
            ends.add(c);
            MultipathConnection s = listener.accept(30, TimeUnit.SECONDS);
            if (s == null) {
                throw new IllegalStateException("server side did not accept within 30 s");
            }
            ends.add(s);
            return new MultipathConnection[] {c, s};
        }

        @Override
        public void close() {
            ends.forEach(MultipathConnection::close);
            listener.close();
            connector.close();
            if (!engines.close(10_000)) {
                System.out.println("  warning: engine agents did not stop within 10 s");
            }
            provider.close();
            network.close();
        }
    }

    /** One Fig. 8 point: CPU ns per part over {@code bytes} moved in {@code seconds}. */
    record Point(int paths, int messageBytes, long bytes, double seconds, Map<Part, Long> cpuNanos, long gcs,
            long jitMillis) {
        double microsPerMiB(Part p) {
            return cpuNanos.get(p) / 1e3 / (bytes / (double) (1 << 20));
        }

        double totalMicrosPerMiB() {
            return cpuNanos.values().stream().mapToLong(Long::longValue).sum() / 1e3 / (bytes / (double) (1 << 20));
        }
    }

    /** MP_WRITEs of {@code messageBytes} over {@code paths} paths until {@code totalBytes} moved, after a warm-up. */
    static Point measure(int paths, int messageBytes, long totalBytes) throws Exception {
        int window = (int) Math.max(2, Math.min(16, WINDOW_BYTES / messageBytes));
        try (Rig rig = new Rig(paths)) {
            MultipathConnection[] pair = rig.connect();
            ByteBuffer src = ByteBuffer.allocateDirect(messageBytes);
            ByteBuffer dst = ByteBuffer.allocateDirect(window * messageBytes);
            try (MemoryRegion srcMr = pair[0].register(src, EnumSet.of(Access.LOCAL_WRITE));
                    MemoryRegion dstMr = pair[1].register(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
                stream(pair[0], srcMr, dstMr, messageBytes, window, Math.max(totalBytes / 4, 2L * messageBytes));
                long gcs = gcCount();
                long jit = jitMillis();
                ThreadCpu before = ThreadCpu.now();
                long t0 = System.nanoTime();
                long moved = stream(pair[0], srcMr, dstMr, messageBytes, window, totalBytes);
                double seconds = (System.nanoTime() - t0) / 1e9;
                Map<Part, Long> spent = before.until(ThreadCpu.now());
                return new Point(paths, messageBytes, moved, seconds, spent, gcCount() - gcs, jitMillis() - jit);
            }
        }
    }

    /** @return garbage collections so far, all collectors */
    private static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    /** @return the JIT compilers' accumulated time in ms, or 0 where the JVM does not say */
    private static long jitMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** @return bytes written: whole messages, at least {@code totalBytes}; fails on a failed request */
    private static long stream(MultipathConnection client, MemoryRegion srcMr, MemoryRegion dstMr, int messageBytes,
            int window, long totalBytes) throws Exception {
        long messages = (totalBytes + messageBytes - 1) / messageBytes;
        long posted = 0;
        long done = 0;
        MpCompletion c = new MpCompletion();
        while (done < messages) {
            while (posted < messages && posted - done < window) {
                int slot = (int) (posted % window);
                client.postWrite(posted, srcMr, 0, messageBytes, dstMr.remote(), (long) slot * messageBytes);
                posted++;
            }
            if (!client.awaitCompletion(c, 30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no completion within 30 s: " + client);
            }
            if (!c.ok()) {
                throw new IllegalStateException("MP_WRITE failed: " + c);
            }
            done++;
        }
        return messages * messageBytes;
    }

    /** One idle point: process CPU and engine duty cycles while {@code connections} sit quiet. */
    record IdlePoint(int connections, double seconds, Map<Part, Long> cpuNanos, long duties) {
        double percent(long nanos) {
            return 100.0 * nanos / (seconds * 1e9);
        }

        long processNanos() {
            return cpuNanos.values().stream().mapToLong(Long::longValue).sum();
        }

        /** @return CPU ns of the Virtuoso threads: engine agents, soft RNIC and fabric, CQ events, control */
        long virtuosoNanos() {
            return cpuNanos.get(Part.MULTIPATH) + cpuNanos.get(Part.SOFT_RNIC) + cpuNanos.get(Part.CQ_EVENTS)
                    + cpuNanos.get(Part.CONTROL);
        }
    }

    /** Opens {@code connections} connections, lets them settle, then measures {@code idleMillis} of quiet. */
    static IdlePoint idle(int connections, int paths, long idleMillis) throws Exception {
        try (Rig rig = new Rig(paths)) {
            ByteBuffer src = ByteBuffer.allocateDirect(4096);
            ByteBuffer dst = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < connections; i++) {
                MultipathConnection[] pair = rig.connect();
                // one request each, so every connection has run its data path once before going quiet
                try (MemoryRegion s = pair[0].register(src, EnumSet.of(Access.LOCAL_WRITE));
                        MemoryRegion d = pair[1].register(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
                    stream(pair[0], s, d, 4096, 1, 4096);
                }
            }
            Thread.sleep(2000); // path probes at connect and the last completions settle
            System.gc(); // the garbage of connecting is collected now, not in the window
            Thread.sleep(1000);
            long duties = rig.engines.duties();
            ThreadCpu before = ThreadCpu.now();
            long t0 = System.nanoTime();
            Thread.sleep(idleMillis);
            Map<Part, Long> spent = before.until(ThreadCpu.now());
            double seconds = (System.nanoTime() - t0) / 1e9;
            return new IdlePoint(connections, seconds, spent, rig.engines.duties() - duties);
        }
    }

    /** {@code fig8-cpu [MiB per point]}: the CPU table (printed at the end, after the runs' logs). */
    static void cpu(long totalMiB) throws Exception {
        List<String> rows = new ArrayList<>();
        measure(2, MESSAGE_BYTES[0], totalMiB << 20); // not reported: the JIT compiles the data path here
        for (int m : MESSAGE_BYTES) {
            for (int p : PATHS) {
                Point r = measure(p, m, totalMiB << 20);
                rows.add(String.format(Locale.ROOT, "| %d | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %d / %d |", p,
                        size(m), r.bytes() / (double) (1 << 20) / r.seconds(), r.microsPerMiB(Part.MULTIPATH),
                        r.microsPerMiB(Part.SOFT_RNIC), r.microsPerMiB(Part.CQ_EVENTS), r.microsPerMiB(Part.CONTROL),
                        r.microsPerMiB(Part.APPLICATION), r.microsPerMiB(Part.OTHER), r.totalMicrosPerMiB(), r.gcs(),
                        r.jitMillis()));
                System.out.println(rows.get(rows.size() - 1));
            }
        }
        System.out.printf(Locale.ROOT, "%n## Fig. 8: CPU per MiB by part, %d MiB MP_WRITE per point, links %s, %d engine agents%s%n",
                totalMiB, LINK, EngineGroup.defaultSize(), cpuMhz());
        System.out.println("\n| paths | message | MiB/s | multipath (engine) us/MiB | soft RNIC + fabric us/MiB | CQ event threads us/MiB"
                + " | control us/MiB | application us/MiB | other (JIT, GC) us/MiB | process us/MiB | GCs / JIT ms |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    /** {@code fig8-idle [seconds]}: the idle-cost table (printed at the end). */
    static void idle(long seconds) throws Exception {
        int paths = 2;
        List<String> rows = new ArrayList<>();
        for (int n : IDLE_CONNECTIONS) {
            IdlePoint r = idle(n, paths, seconds * 1000);
            Map<Part, Long> c = r.cpuNanos();
            rows.add(String.format(Locale.ROOT, "| %d | %.2f | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |", n,
                    r.percent(r.processNanos()), perConnection(r.percent(r.processNanos()), n),
                    perConnection(r.percent(r.virtuosoNanos()), n),
                    r.percent(c.get(Part.MULTIPATH)), r.percent(c.get(Part.SOFT_RNIC)), r.percent(c.get(Part.CQ_EVENTS)),
                    r.percent(c.get(Part.CONTROL)), r.percent(c.get(Part.OTHER) + c.get(Part.APPLICATION)),
                    n == 0 ? "-" : String.format(Locale.ROOT, "%.1f", r.duties() / (double) n / r.seconds())));
            System.out.println(rows.get(rows.size() - 1));
        }
        System.out.printf(Locale.ROOT, "%n## Idle cost: quiet connections (both ends in this process, %d paths each), %d s,"
                + " %d engine agents, 1 s heartbeats%n", paths, seconds, EngineGroup.defaultSize());
        System.out.println("\n| connections | process CPU % of one core | process % per connection"
                + " | virtuoso-* threads % per connection | engine agents % | soft RNIC + fabric %"
                + " | CQ event threads % | control % | other (JIT, GC, JMX) % | engine duty cycles per connection per s |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    private static String perConnection(double percent, int connections) {
        return connections == 0 ? "-" : String.format(Locale.ROOT, "%.3f", percent / connections);
    }

    private static String size(int bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }

    /** @return ", CPU at N MHz (cycles/MiB = us/MiB x MHz)" from /proc/cpuinfo, or "" elsewhere */
    private static String cpuMhz() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("cpu MHz")) {
                    return ", CPU at " + line.substring(line.indexOf(':') + 1).trim()
                            + " MHz (cycles per MiB = us/MiB x MHz)";
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return "";
        }
        return "";
    }
}
