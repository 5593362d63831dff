package dev.virtuoso.itests.robustness.soak;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.policy.cc.chunkprobe.ChunkProbePolicy;
import dev.virtuoso.policy.lb.adaptive.AdaptivePolicy;
import dev.virtuoso.policy.lb.roundrobin.RoundRobinPolicy;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * The soak run of issue 8: two soft RNICs ({@code a} clients, {@code b} servers) over the in-process
 * fabric with {@code paths} lossy links, {@code connections} worker threads each running mixed,
 * verified MP_WRITE / MP_READ / MP_SEND+MP_RECV batches over its own connection, reconnecting every
 * {@code churn} and swapping load balancers (builtin, lb-roundrobin, lb-adaptive) and congestion
 * avoidances (builtin, cc-chunkprobe) every {@code swap}. Prints progress and a summary,
 * writes {@code soak-summary.json} and {@code soak-progress.csv}; the exit code is 0 only if no byte
 * mismatched, no operation failed or hung, no connection failed to establish, and threads,
 * descriptors and heap are back at their baseline.
 */
public final class Soak {
    /** Heap growth after GC still counted as no leak (JIT, class loading, pools grown once). */
    static final long HEAP_TOLERANCE = 32L << 20;

    private final SoakConfig config;
    private final SoakStats stats = new SoakStats();

    public Soak(SoakConfig config) {
        this.config = config;
    }

    /** Result of a run. */
    public record Result(boolean passed, Map<String, Object> report) {
    }

    /**
     * Runs the soak with {@code --key=value} options (see {@link SoakConfig#parse}).
     *
     * @param args options
     */
    public static void main(String[] args) throws Exception {
        SoakConfig config;
        try {
            config = SoakConfig.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.err.println("usage: soak [--duration=10m] [--paths=4] [--connections=3] [--link='loss=1% delay=50us']"
                    + " [--seed=42] [--churn=20s] [--swap=5s] [--max-message=2m] [--split=64k] [--chunk=256k]"
                    + " [--op-timeout=60s] [--progress=30s] [--out=target/soak]"
                    + " [--zero-length-sends=true]");
            System.exit(2);
            return;
        }
        Result r = new Soak(config).run();
        System.exit(r.passed() ? 0 : 1);
    }

    /** Runs the soak for the configured duration; writes the report files; never throws for a failed check. */
    public Result run() throws Exception {
        Instant started = Instant.now();
        double loadAtStart = loadAverage();
        System.out.printf("soak: %s, load average %.2f%n", config.asMap(), loadAtStart);
        ProcessSnapshot beforeSetup = ProcessSnapshot.take();
        int p = config.paths();
        List<InetAddress> a = addresses("10.9.1.", p);
        List<InetAddress> b = addresses("10.9.2.", p);
        FabricNetwork network = new FabricNetwork("soak", config.seed());
        network.addHost("a", a.toArray(new InetAddress[0]));
        network.addHost("b", b.toArray(new InetAddress[0]));
        List<FabricLink> links = new ArrayList<>();
        for (int i = 0; i < p; i++) {
            links.add(network.link(a.get(i), b.get(i), LinkSpec.parse(config.link())));
        }
        SoftVerbsProvider provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addresses(a).fabric(network, "a").build(),
                SoftRnicConfig.builder("b").addresses(b).fabric(network, "b").build());
        PolicyRegistry policies = new PolicyRegistry();
        policies.add(RoundRobinPolicy.NAME, new RoundRobinPolicy());
        policies.add(AdaptivePolicy.NAME, new AdaptivePolicy());
        policies.add(ChunkProbePolicy.NAME, new ChunkProbePolicy());
        EngineGroup engines = new EngineGroup(EngineGroup.defaultSize(), EngineGroup.DEFAULT_ACTIVE_SPIN_NANOS,
                config.invokeOnPoll());
        Connector connector = new Connector(n -> provider, new DecomposerComponent(), new ReassemblerComponent(),
                policies, CoreSettings.DEFAULTS, engines);
        IbvContext ca = provider.openDevice("a");
        IbvContext cb = provider.openDevice("b");
        ConnectOptions.Builder common = ConnectOptions.builder().handshakeTimeout(Duration.ofSeconds(20))
                .splitThreshold(config.splitThreshold()).chunkSize(config.chunkBytes());
        List<MultipathListener> listeners = new ArrayList<>();
        List<SoakWorker> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < config.connections(); i++) {
            MultipathListener l = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    common.device("b").build());
            listeners.add(l);
            workers.add(new SoakWorker(i, connector, l, common.device("a").build(), config, stats));
        }
        ProcessSnapshot base = ProcessSnapshot.take();
        System.out.println("soak: baseline " + base);

        List<String> csv = new ArrayList<>();
        csv.add("elapsed_s,ops,bytes,failed,mismatches,timeouts,session_errors,connects,swaps,threads,heap_used_kib,load1");
        long t0 = System.nanoTime();
        for (int i = 0; i < workers.size(); i++) {
            Thread t = new Thread(workers.get(i), "virtuoso-soak-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        long end = t0 + config.duration().toNanos();
        double maxLoad = loadAtStart;
        long now;
        while ((now = System.nanoTime()) < end) {
            Thread.sleep(Math.max(1, Math.min(config.progress().toMillis(), (end - now) / 1_000_000)));
            double load = loadAverage();
            maxLoad = Double.isNaN(load) ? maxLoad : Math.max(maxLoad, load);
            String row = sample((System.nanoTime() - t0) / 1e9, load);
            csv.add(row);
            System.out.println("soak: " + row);
        }
        for (SoakWorker w : workers) {
            w.stop();
        }
        long joinMillis = config.opTimeout().toMillis() + 30_000;
        for (Thread t : threads) {
            t.join(joinMillis);
            if (t.isAlive()) {
                stats.timeout(t.getName() + " did not stop within " + joinMillis + " ms: " + stack(t));
                t.interrupt();
            }
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        double loadAtEnd = loadAverage();
        csv.add(sample(elapsed, loadAtEnd));
        ProcessSnapshot after = ProcessSnapshot.settle(base);
        Map<String, Object> deviceA = SoakReport.counters(ca);
        Map<String, Object> deviceB = SoakReport.counters(cb);
        Map<String, Object> fabric = SoakReport.fabricCounters(links);
        for (MultipathListener l : listeners) {
            l.close();
        }
        connector.close();
        engines.close();
        ca.close();
        cb.close();
        provider.close();
        network.close();
        ProcessSnapshot teardown = ProcessSnapshot.settleThreads(beforeSetup);

        long failures = stats.totalFailed() + stats.mismatches.sum() + stats.timeouts.sum()
                + stats.sessionErrors.sum() + stats.unexpectedCompletions.sum() + engines.agentErrors();
        boolean leaked = after.leakedSince(base, HEAP_TOLERANCE);
        boolean passed = failures == 0 && !leaked && stats.totalOps() > 0;

        Map<String, Object> report = new LinkedHashMap<>();
        report.put("verdict", passed ? "PASS" : "FAIL");
        report.put("started", started.toString());
        report.put("elapsedSeconds", elapsed);
        report.put("config", config.asMap());
        report.put("loadAverage1m", SoakReport.map("start", loadAtStart, "max", maxLoad, "end", loadAtEnd));
        report.put("processors", Runtime.getRuntime().availableProcessors());
        report.put("java", System.getProperty("java.version"));
        report.put("totals", stats.totals(elapsed));
        report.put("perKind", stats.perKind());
        report.put("pathTotals", SoakReport.map("chunksFailed", stats.chunksFailed.sum(), "retransmissions",
                stats.pathRetransmissions.sum()));
        report.put("deviceA", deviceA);
        report.put("deviceB", deviceB);
        report.put("fabric", fabric);
        report.put("engine", SoakReport.map("invokeOnPoll", engines.invokeOnPoll(), "invokes", engines.invokes(),
                "standBacks", engines.standBacks(), "agentErrors", engines.agentErrors()));
        Map<String, Object> process = new LinkedHashMap<>();
        process.put("beforeSetup", beforeSetup.asMap());
        process.put("baseline", base.asMap());
        process.put("afterRun", after.asMap());
        process.put("afterTeardown", teardown.asMap());
        process.put("leakSuspected", leaked);
        report.put("process", process);
        report.put("details", stats.details());
        SoakReport.write(config.out(), report, csv);
        SoakReport.printSummary(config.out(), report, passed, base, after, teardown, beforeSetup);
        return new Result(passed, report);
    }

    private String sample(double elapsedSeconds, double load) {
        return String.format(Locale.ROOT, "%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.2f", elapsedSeconds, stats.totalOps(),
                stats.totalBytes(), stats.totalFailed(), stats.mismatches.sum(), stats.timeouts.sum(),
                stats.sessionErrors.sum(), stats.connects.sum(), stats.swaps.sum(),
                java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount(),
                (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 10, load);
    }

    private static String stack(Thread t) {
        StringBuilder b = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            b.append("\n    at ").append(e);
        }
        return b.toString();
    }

    /** @return the 1-minute load average, NaN where /proc/loadavg is missing */
    static double loadAverage() {
        try {
            String s = Files.readString(Path.of("/proc/loadavg"));
            return Double.parseDouble(s.substring(0, s.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static List<InetAddress> addresses(String prefix, int n) throws UnknownHostException {
        List<InetAddress> l = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            l.add(InetAddress.getByName(prefix + i));
        }
        return l;
    }
}
