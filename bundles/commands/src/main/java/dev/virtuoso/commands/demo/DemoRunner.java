package dev.virtuoso.commands.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.commands.SoftProviderConfig;
import dev.virtuoso.commands.VirtuosoServices;
import dev.virtuoso.commands.cli.Units;
import dev.virtuoso.commands.report.PhaseResult;
import dev.virtuoso.commands.report.SummaryTable;
import dev.virtuoso.commands.report.ThroughputChart;
import dev.virtuoso.commands.report.TimeSeriesCsv;

/**
 * The demo: puts the soft RNIC on an in-process fabric of two hosts joined by several
 * rate-limited links, then (1) MP_WRITEs over the best single path, (2) MP_WRITEs over every path
 * with one load-balancing policy and swaps in another halfway, (3) MP_SENDs over every path; every
 * byte is checked, progress is shown live, and a summary table, CSVs and a PNG chart end the run.
 */
public final class DemoRunner {

    private final VirtuosoServices services;
    private final DemoOptions options;
    private final PrintStream out;
    private final List<PhaseResult> results = new ArrayList<>();
    private final List<ThroughputChart.Marker> markers = new ArrayList<>();
    private long seed = 1;
    /** The phase running now (its midpoint action reads the policies seen so far). */
    private PhaseProgress current;

    /**
     * @param services the services to use
     * @param options what to run
     * @param out where to print
     */
    public DemoRunner(VirtuosoServices services, DemoOptions options, PrintStream out) {
        this.services = services;
        this.options = options;
        this.out = out;
    }

    /**
     * Runs the demo.
     *
     * @throws IOException if a service is missing, a transfer fails or a byte differs
     * @throws InterruptedException if interrupted
     */
    public void run() throws IOException, InterruptedException {
        FabricPlan plan = options.plan();
        header(plan);
        checkPolicies();
        Path dir = options.out() != null ? options.out() : services.home().resolve("results");
        try (SoftProviderConfig fabric = SoftProviderConfig.fabric(services, plan.spec(),
                Set.of(FabricPlan.CLIENT, FabricPlan.SERVER))) {
            execute(services.connector(10, TimeUnit.SECONDS), dir);
        }
    }

    /**
     * Runs the phases on a connector whose soft RNIC already offers the plan's fabric hosts as
     * devices, then prints and writes the results.
     *
     * @param connector the connector
     * @param dir where the CSVs and the chart go
     * @throws IOException if a transfer fails or a byte differs
     * @throws InterruptedException if interrupted
     */
    public void execute(MultipathConnector connector, Path dir) throws IOException, InterruptedException {
        FabricPlan plan = options.plan();
        List<Sample> samples;
        ConnectOptions base = ConnectOptions.builder().provider(SoftProviderConfig.PROVIDER)
                .handshakeTimeout(Duration.ofSeconds(10)).maxOutstanding(Math.max(64, 4 * options.window()))
                .build();
        try (ProgressMonitor monitor = new ProgressMonitor(out, System.console() != null, plan.paths(),
                s -> plan.pathOf(s.localAddress()))) {
            singlePath(connector, base, plan, monitor);
            multiPath(connector, base, plan, monitor);
            samples = monitor.samples();
        }
        out.println();
        long verified = results.stream().mapToLong(PhaseResult::bytes).sum();
        out.println("Summary: every byte verified (" + Units.bytes(verified) + " in "
                + results.size() + " measured phases)");
        SummaryTable.print(out, results);
        conclusion();
        write(dir, plan, samples);
    }

    private void header(FabricPlan plan) {
        out.println("Virtuoso demo: two endpoints in one process, soft RNIC over the in-process fabric");
        for (int i = 0; i < plan.paths(); i++) {
            out.printf(Locale.ROOT, "  path %d: %-13s <-> %-15s %s%n", i, plan.clientAddress(i).getHostAddress(),
                    plan.serverAddress(i).getHostAddress(), Units.rate(plan.ratesBitsPerSecond().get(i)));
        }
        out.printf(Locale.ROOT, "  sum of path capacities: %s; MP work requests of %s, %d outstanding%n%n",
                Units.rate(plan.totalRate()), Units.bytes(options.wrBytes()), options.window());
    }

    private void checkPolicies() throws IOException {
        TreeSet<String> known = services.loadBalancerNames();
        for (String p : List.of(options.before(), options.after())) {
            if (!p.equals(ConnectOptions.BUILTIN_ROUND_ROBIN) && !known.contains(p)) {
                throw new IOException("load-balancing policy '" + p + "' is not registered (registered: "
                        + (known.isEmpty() ? "none; is the virtuoso-policies feature installed?" : known) + ")");
            }
        }
    }

    private void singlePath(MultipathConnector connector, ConnectOptions base, FabricPlan plan,
            ProgressMonitor monitor) throws IOException, InterruptedException {
        if (options.singleBytes() == 0) {
            return;
        }
        int f = plan.fastestPath();
        out.printf(Locale.ROOT, "1. MP_WRITE of %s over the best single path (path %d, %s)%n",
                Units.bytes(options.singleBytes()), f, Units.rate(plan.ratesBitsPerSecond().get(f)));
        try (EndpointPair pair = EndpointPair.open(connector, base, FabricPlan.CLIENT, List.of(plan.clientAddress(f)),
                FabricPlan.SERVER, List.of(plan.serverAddress(f)), options.ringBytes())) {
            warmUp(pair);
            Run r = phase(pair, Transfer.Op.WRITE, "single path", options.singleBytes(), monitor, null);
            results.add(new PhaseResult("single path (best link)", "WRITE", 1, r.policies(), r.result().bytes(),
                    r.result().nanos(), plan.ratesBitsPerSecond().get(f), r.pathBytes()));
        }
    }

    private void multiPath(MultipathConnector connector, ConnectOptions base, FabricPlan plan, ProgressMonitor monitor)
            throws IOException, InterruptedException {
        List<InetAddress> client = new ArrayList<>();
        List<InetAddress> server = new ArrayList<>();
        for (int i = 0; i < plan.paths(); i++) {
            client.add(plan.clientAddress(i));
            server.add(plan.serverAddress(i));
        }
        ConnectOptions opts = base.toBuilder().loadBalancer(options.before()).build();
        try (EndpointPair pair = EndpointPair.open(connector, opts, FabricPlan.CLIENT, client, FabricPlan.SERVER,
                server, options.ringBytes())) {
            MultipathConnection conn = pair.clientConnection();
            checkChoice(conn, options.before());
            warmUp(pair);
            if (options.writeBytes() > 0) {
                out.printf(Locale.ROOT, "%n2. MP_WRITE of %s over %d paths with %s, swapped for %s halfway%n",
                        Units.bytes(options.writeBytes()), plan.paths(), conn.loadBalancer(), options.after());
                String[] before = new String[1];
                long[][] atSwap = new long[1][];
                Run r = phase(pair, Transfer.Op.WRITE, "MP_WRITE", options.writeBytes(), monitor, () -> {
                    before[0] = current.takePolicies();
                    atSwap[0] = monitor.phasePathBytes();
                    conn.setLoadBalancer(options.after());
                    markers.add(new ThroughputChart.Marker(monitor.seconds(), before[0] + " -> " + options.after(),
                            true));
                });
                Transfer.Result t = r.result();
                long[] afterSwap = r.pathBytes().clone();
                for (int i = 0; atSwap[0] != null && i < afterSwap.length; i++) {
                    afterSwap[i] -= atSwap[0][i];
                }
                results.add(new PhaseResult("multipath, before the swap", "WRITE", plan.paths(),
                        before[0] != null ? before[0] : r.policies(), t.midBytes(), t.midNanos(), plan.totalRate(),
                        atSwap[0] != null ? atSwap[0] : r.pathBytes()));
                // after the swap: only requests posted after it (those in flight at the swap were placed
                // by the old policy); bytes per path count from the swap on
                results.add(new PhaseResult("multipath, after the swap", "WRITE", plan.paths(), r.policies(),
                        t.bytes() - t.settledBytes(), t.nanos() - t.settledNanos(), plan.totalRate(), afterSwap));
            } else {
                conn.setLoadBalancer(options.after());
            }
            checkChoice(conn, options.after());
            if (options.sendBytes() > 0) {
                out.printf(Locale.ROOT, "%n3. MP_SEND of %s over %d paths with %s%n", Units.bytes(options.sendBytes()),
                        plan.paths(), conn.loadBalancer());
                Run r = phase(pair, Transfer.Op.SEND, "MP_SEND", options.sendBytes(), monitor, null);
                results.add(new PhaseResult("multipath", "SEND", plan.paths(), r.policies(), r.result().bytes(),
                        r.result().nanos(), plan.totalRate(), r.pathBytes()));
            }
        }
    }

    /**
     * One ring of MP_WRITEs before measuring, on every new pair alike: the first requests of a
     * connection pay for JIT compilation and QP warm-up, which would otherwise count against
     * whichever phase comes first.
     */
    private void warmUp(EndpointPair pair) throws IOException, InterruptedException {
        long bytes = options.ringBytes();
        PhaseProgress p = new PhaseProgress("warm-up", bytes, pair.clientConnection(),
                pair.clientConnection()::loadBalancer);
        new Transfer(Transfer.Op.WRITE, pair.client(), pair.server(), options.wrBytes(), options.window(), bytes,
                seed, p).run(null);
        seed += options.window();
    }

    /**
     * A measured phase.
     *
     * @param result what the transfer measured
     * @param pathBytes bytes per physical path during the phase
     * @param policies the load-balancing policies that carried it (after the midpoint, if any)
     */
    private record Run(Transfer.Result result, long[] pathBytes, String policies) {
    }

    private Run phase(EndpointPair pair, Transfer.Op op, String name, long bytes, ProgressMonitor monitor,
            Transfer.MidpointAction midpoint) throws IOException, InterruptedException {
        MultipathConnection conn = pair.clientConnection();
        PhaseProgress p = new PhaseProgress(name, bytes, conn, conn::loadBalancer);
        current = p;
        markers.add(new ThroughputChart.Marker(monitor.seconds(), name, false));
        monitor.begin(p);
        try {
            Transfer t = new Transfer(op, pair.client(), pair.server(), options.wrBytes(), options.window(), bytes,
                    seed, p);
            Transfer.Result r = t.run(midpoint);
            seed += (bytes + options.wrBytes() - 1) / options.wrBytes();
            long[] pathBytes = monitor.phasePathBytes();
            return new Run(r, pathBytes, p.takePolicies());
        } finally {
            monitor.end();
        }
    }

    /**
     * The user's choice is never overridden silently: a ConfigAdmin policy binding ({@code connection=*})
     * or the fallback (the policy is not registered) may give the connection another policy; say so.
     */
    private void checkChoice(MultipathConnection conn, String asked) {
        String note = choiceNote(asked, conn.loadBalancer());
        if (note != null) {
            out.println(note);
        }
    }

    /** @return the line saying the connection does not run the policy asked for, or {@code null} if it does */
    static String choiceNote(String asked, String inUse) {
        if (asked.equals(inUse)) {
            return null;
        }
        return "  note: " + asked + " was asked for, but the connection runs " + inUse + " (a ConfigAdmin policy"
                + " binding or the fallback chose it; virtuoso:policies shows which); the results name " + inUse;
    }

    private void conclusion() {
        if (results.size() < 2) {
            return;
        }
        PhaseResult single = results.get(0);
        PhaseResult best = results.stream().skip(1).max((a, b) -> Double.compare(a.goodput(), b.goodput())).get();
        out.printf(Locale.ROOT, "%nMultipath (%s, %d paths) moved data %.2fx as fast as the best single path "
                + "(%s against %s), %.0f%% of the paths' total capacity.%n", best.policy(), best.paths(),
                best.goodput() / Math.max(1, single.goodput()), Units.rate(best.goodput()), Units.rate(single.goodput()),
                best.utilisation() * 100);
    }

    /**
     * The chart is drawn with java.awt and javax.imageio, i.e. the JDK module java.desktop, which a
     * jlinked or headless-minimal runtime may lack; the commands bundle imports javax.imageio
     * optionally and checks here before touching either.
     *
     * @return why the chart cannot be drawn, or {@code null} if it can
     */
    static String chartUnavailable() {
        if (ModuleLayer.boot().findModule("java.desktop").isEmpty()) {
            return "this Java runtime has no java.desktop module";
        }
        try {
            Class.forName("javax.imageio.ImageIO", false, DemoRunner.class.getClassLoader());
            return null;
        } catch (ClassNotFoundException | LinkageError e) {
            return "javax.imageio is not visible to the commands bundle (the framework does not export it)";
        }
    }

    private void write(Path dir, FabricPlan plan, List<Sample> samples) throws IOException {
        Files.createDirectories(dir);
        Path summary = dir.resolve("demo-summary.csv");
        Path series = dir.resolve("demo-timeseries.csv");
        SummaryTable.writeCsv(summary, results);
        TimeSeriesCsv.write(series, samples, plan.paths());
        out.println("\nWrote " + summary + " and " + series);
        if (!options.chart()) {
            return;
        }
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < plan.paths(); i++) {
            labels.add("path " + i + " (" + Units.rate(plan.ratesBitsPerSecond().get(i)) + ")");
        }
        List<ThroughputChart.Level> levels = List.of(
                new ThroughputChart.Level(plan.totalRate(), "all paths " + Units.rate(plan.totalRate())),
                new ThroughputChart.Level(plan.ratesBitsPerSecond().get(plan.fastestPath()), "best single path"));
        String missing = chartUnavailable();
        if (missing != null) {
            out.println("Chart not drawn: " + missing + " (the CSVs above hold the same data)");
            return;
        }
        Path png = dir.resolve("demo.png");
        try {
            ThroughputChart.write(png, "Virtuoso demo: " + plan.paths() + " paths over the in-process fabric",
                    labels, samples, markers, levels, results);
            out.println("Wrote " + png);
        } catch (IOException | RuntimeException | Error e) {
            // a JVM without fonts or image I/O must not fail a run whose data was verified
            out.println("Chart not drawn: " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()));
        }
    }
}
