package dev.virtuoso.policy.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.policy.cc.chunkprobe.api.ChunkSizeStats;

/**
 * The issue-5 policy benchmarks on the in-process fabric. Usage:
 * {@code PolicyBench heterogeneous|halving|cut|lossy|table2|all [seconds]}; results are printed as
 * Markdown tables (docs/policies-benchmarks.md quotes them).
 */
public final class PolicyBench {
    private static final long[] HETERO_MBIT = {200, 100, 50, 25};
    private static final int WR_BYTES = 8 << 20;
    private static final int WINDOW = 4;
    private static final long SAMPLE_MILLIS = 100;

    private PolicyBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("latency-split")) {
            // "latency-split [both|fabric|udp] [ITERATIONS]": see SplitLatency
            SplitLatency.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("latency-rounds")) {
            // "latency-rounds [both|fabric|udp] [ROUNDS] [ITERATIONS] [SPIN_US[p],...]": see RoundsLatency
            RoundsLatency.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("latency-one-thread")) {
            // "latency-one-thread [both|fabric|udp] [ITERATIONS] [RX_DEPTH]": see OneThreadLatency
            OneThreadLatency.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("latency-link")) {
            // "latency-link [LINK] [ITERATIONS]": see LinkLatency
            LinkLatency.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("latency")) {
            // "latency [both|fabric|udp|veth|all] [ITERATIONS] [SPLIT_THRESHOLD] [SPIN_US,...]": see LatencyBench
            LatencyBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        String what = args.length > 0 ? args[0] : "all";
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 10;
        System.out.printf(Locale.ROOT, "# policy bench %s, %d s per run, MP_WRITE %d MiB x %d outstanding, Java %s, %d cpus%n",
                what, seconds, WR_BYTES >> 20, WINDOW, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        switch (what) {
            case "heterogeneous" -> heterogeneous(seconds);
            case "halving" -> halving(seconds);
            case "cut" -> cut(seconds);
            case "lossy" -> lossy(seconds);
            case "table2" -> table2(seconds);
            case "fig8-cpu" -> Fig8Bench.cpu(args.length > 1 ? seconds : 256); // second argument: MiB per point
            case "fig8-idle" -> Fig8Bench.idle(seconds);
            case "all" -> {
                heterogeneous(seconds);
                halving(seconds);
                cut(seconds);
                lossy(seconds);
                table2(seconds);
            }
            default -> throw new IllegalArgumentException("unknown benchmark " + what
                    + "; use heterogeneous|halving|cut|lossy|table2|all");
        }
        System.exit(0);
    }

    private static List<String> links(long[] mbit, String extra) {
        List<String> specs = new ArrayList<>();
        for (long m : mbit) {
            specs.add("rate=" + m + "m delay=50us " + extra);
        }
        return specs;
    }

    private static ConnectOptions options(String lb, String cc) {
        return ConnectOptions.builder().loadBalancer(lb).congestionAvoidance(cc)
                .handshakeTimeout(Duration.ofSeconds(10)).failoverTimeout(Duration.ofSeconds(20)).build();
    }

    /** Lossy runs: QP retry count and ACK timeout small enough that losses can exhaust retries. */
    private static ConnectOptions lossyOptions(String lb, String cc) {
        ConnectOptions.Builder b = options(lb, cc).toBuilder().retryCount(Integer.getInteger("bench.retryCount", 7))
                .ackTimeout(Integer.getInteger("bench.ackTimeout", 14));
        // -Dbench.chunkProbe=window=1,levelChunks=32 and -Dbench.ccFixed=pacingBitsPerSecond=99000000:
        // the policy's settings for this run
        policyProperties(b, cc, "cc-chunkprobe", "bench.chunkProbe");
        policyProperties(b, cc, "cc-fixed", "bench.ccFixed");
        return b.build();
    }

    private static void policyProperties(ConnectOptions.Builder b, String cc, String policy, String property) {
        for (String kv : System.getProperty(property, "").split(",")) {
            int eq = kv.indexOf('=');
            if (eq <= 0 && !kv.isBlank()) {
                throw new IllegalArgumentException("-D" + property + " takes key=value,...: " + kv);
            } else if (eq > 0 && cc.equals(policy)) {
                b.policyProperty(policy + "." + kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
    }

    private static final String LOSSY_LINK = System.getProperty("bench.lossyLink", "");
    /** The load balancer of the lossy runs (round robin by default: every path gets the same bytes). */
    private static final String LOSSY_LB = System.getProperty("bench.lossyLb", "lb-roundrobin");

    private static WriteStream.Result run(BenchPair pair, long seconds, List<WriteStream.Action> actions)
            throws Exception {
        try (WriteStream s = new WriteStream(pair.client, pair.server, WR_BYTES, WINDOW)) {
            WriteStream.Result r = s.run(seconds * 1000, SAMPLE_MILLIS, actions);
            System.out.printf(Locale.ROOT,
                    "  MP_WRITEs ok %d, failed %d, not completed 20 s after the end %d, byte mismatches %d, bytes verified %d%s%n",
                    r.requestsCompleted(), r.requestsFailed(), r.undrained(), r.mismatches(), r.bytesVerified(),
                    r.firstFailure() == null ? "" : ", first failure " + r.firstFailure());
            System.out.println("  client device counters " + pair.clientCounters());
            for (PathStats p : pair.client.pathStats()) {
                System.out.printf(Locale.ROOT,
                        "  path %d %s: %d bytes, %d chunks ok, %d failed, est %.1f Mbit/s, probed %.1f Mbit/s%n",
                        p.pathId(), p.state(), p.bytesCompleted(), p.chunksCompleted(), p.chunksFailed(),
                        p.estimatedRate() * 8 / 1e6, p.probedCapacity() * 8 / 1e6);
            }
            return r;
        }
    }

    private static double sum(long[] mbit) {
        double s = 0;
        for (long m : mbit) {
            s += m;
        }
        return s;
    }

    /** Heterogeneous 200/100/50/25 Mbit/s paths: goodput of each load balancer. */
    static void heterogeneous(long seconds) throws Exception {
        double total = sum(HETERO_MBIT);
        System.out.println("\n## heterogeneous paths 200/100/50/25 Mbit/s (sum 375), cc-fixed 1 MiB");
        List<String> rows = new ArrayList<>();
        for (String lb : new String[] {"lb-adaptive", "lb-proportional", "lb-roundrobin", "lb-single"}) {
            System.out.println("- " + lb);
            try (BenchPair pair = new BenchPair(links(HETERO_MBIT, ""), options(lb, "cc-fixed"), 1)) {
                WriteStream.Result r = run(pair, seconds, List.of());
                long from = 2000;
                long to = seconds * 1000;
                double g = r.goodputBits(from, to) / 1e6;
                StringBuilder perPath = new StringBuilder();
                for (int p = 0; p < HETERO_MBIT.length; p++) {
                    perPath.append(String.format(Locale.ROOT, "%s%.1f", p == 0 ? "" : " / ", r.pathBits(p, from, to) / 1e6));
                }
                rows.add(String.format(Locale.ROOT, "| %s | %.1f | %.1f%% | %s | %d | %d |", lb, g, 100 * g / total,
                        perPath, r.requestsFailed(), r.mismatches()));
            }
        }
        System.out.println("\n| load balancer | goodput Mbit/s (2 s..end) | of 375 | per path Mbit/s | failed WRs | mismatches |");
        System.out.println("|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    /** Path 0 drops from 200 to 100 Mbit/s at 40% of the run: recovery to 90% of the new sum. */
    static void halving(long seconds) throws Exception {
        System.out.println("\n## path 0 halves 200 -> 100 Mbit/s mid-transfer (new sum 275), cc-fixed 1 MiB");
        long change = seconds * 400;
        List<String> rows = new ArrayList<>();
        for (String lb : new String[] {"lb-adaptive", "lb-proportional", "lb-roundrobin"}) {
            System.out.println("- " + lb);
            try (BenchPair pair = new BenchPair(links(HETERO_MBIT, ""), options(lb, "cc-fixed"), 1)) {
                WriteStream.Result r = run(pair, seconds, List.of(new WriteStream.Action(change,
                        "path 0 link 200 -> 100 Mbit/s", () -> pair.reconfigure(0, "rate=100m delay=50us"))));
                double before = r.goodputBits(change - 2000, change) / 1e6;
                double after = r.goodputBits(change + 1000, seconds * 1000) / 1e6;
                long recovered = recovery(r, change, 275 * 0.9, 500);
                rows.add(String.format(Locale.ROOT, "| %s | %.1f (%.0f%% of 375) | %.1f (%.0f%% of 275) | %s |", lb, before,
                        100 * before / 375, after, 100 * after / 275,
                        recovered < 0 ? "not within the run" : recovered + " ms"));
            }
        }
        System.out.println("\n| load balancer | before Mbit/s | from 1 s after the change Mbit/s | first 500 ms window >= 247.5 Mbit/s ends after |");
        System.out.println("|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    /** Path 1 (100 Mbit/s) is cut at 40% of the run: no byte lost, goodput back to 90% of 275. */
    static void cut(long seconds) throws Exception {
        System.out.println("\n## path 1 (100 Mbit/s) cut mid-transfer (surviving sum 275), cc-fixed 1 MiB");
        long change = seconds * 400;
        List<String> rows = new ArrayList<>();
        for (String lb : new String[] {"lb-adaptive", "lb-proportional", "lb-roundrobin"}) {
            System.out.println("- " + lb);
            try (BenchPair pair = new BenchPair(links(HETERO_MBIT, ""), options(lb, "cc-fixed"), 1)) {
                WriteStream.Result r = run(pair, seconds, List.of(new WriteStream.Action(change, "path 1 link down",
                        () -> pair.links.get(1).down())));
                double after = r.goodputBits(change + 2000, seconds * 1000) / 1e6;
                long recovered = recovery(r, change, 275 * 0.9, 500);
                rows.add(String.format(Locale.ROOT, "| %s | %d | %d | %d | %.1f (%.0f%% of 275) | %s |", lb,
                        r.requestsCompleted(), r.requestsFailed(), r.mismatches(), after, 100 * after / 275,
                        recovered < 0 ? "not within the run" : recovered + " ms"));
            }
        }
        System.out.println("\n| load balancer | MP_WRITEs ok | failed | byte mismatches | goodput from 2 s after the cut | first 500 ms window >= 247.5 Mbit/s ends after |");
        System.out.println("|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    /** Lossy paths: cc-chunkprobe against cc-fixed. */
    static void lossy(long seconds) throws Exception {
        long[] mbit = {100, 100, 100, 100};
        System.out.printf("%n## lossy paths 4 x 100 Mbit/s %s, QP retry count %d, ack timeout %d, %s%n",
                LOSSY_LINK, Integer.getInteger("bench.retryCount", 7), Integer.getInteger("bench.ackTimeout", 14),
                LOSSY_LB);
        List<String> rows = new ArrayList<>();
        for (String loss : System.getProperty("bench.losses", "0.1%,1%,5%").split(",")) {
            for (String cc : System.getProperty("bench.lossyCc", "cc-chunkprobe,cc-fixed").split(",")) {
                System.out.println("- loss " + loss + " " + cc);
                try (BenchPair pair = new BenchPair(links(mbit, "loss=" + loss + " " + LOSSY_LINK),
                        lossyOptions(LOSSY_LB, cc), 1)) {
                    String id = pair.client.id();
                    WriteStream.Result r = run(pair, seconds, List.of());
                    double g = r.goodputBits(2000, seconds * 1000) / 1e6;
                    String sizes = cc.equals("cc-chunkprobe") ? chunkSizes(pair.chunkProbe.statistics(id)) : "1048576 (fixed)";
                    rows.add(String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f | %d | %d | %d | %s |", loss, cc, g,
                            100 * g / (100.0 * mbit.length), r.requestsCompleted(), r.undrained(), r.mismatches(), sizes));
                }
            }
        }
        System.out.println("\n| loss | congestion avoidance | goodput Mbit/s (2 s..end) | % of capacity | MP_WRITEs ok | not done 20 s after the end | mismatches | chunk size: safe per path / avg completed |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    private static String chunkSizes(List<ChunkSizeStats> stats) {
        StringBuilder sb = new StringBuilder();
        long done = 0;
        long bytes = 0;
        for (ChunkSizeStats s : stats) {
            sb.append(sb.length() == 0 ? "" : " ").append(s.safeChunkBytes());
            done += s.chunksCompleted();
            bytes += s.averageCompletedChunkBytes() * s.chunksCompleted();
        }
        return sb + " / " + (done == 0 ? 0 : bytes / done);
    }

    /** The paper's Table 2: chunk sizes found against the number of paths. */
    static void table2(long seconds) throws Exception {
        String link = System.getProperty("bench.table2Link", "loss=1% queue=256k");
        System.out.printf("%n## Table 2: cc-chunkprobe on lossy paths (100 Mbit/s %s, QP retry count %d, ack timeout %d), lb-roundrobin%n",
                link, Integer.getInteger("bench.retryCount", 7), Integer.getInteger("bench.ackTimeout", 14));
        List<String> rows = new ArrayList<>();
        for (int n : new int[] {1, 2, 4, 8}) {
            long[] mbit = new long[n];
            java.util.Arrays.fill(mbit, 100);
            System.out.println("- " + n + " paths");
            try (BenchPair pair = new BenchPair(links(mbit, link), lossyOptions("lb-roundrobin",
                    "cc-chunkprobe"), 1)) {
                String id = pair.client.id();
                WriteStream.Result r = run(pair, seconds, List.of());
                List<ChunkSizeStats> stats = pair.chunkProbe.statistics(id);
                long sumSafe = 0;
                long maxDone = 0;
                long done = 0;
                long bytes = 0;
                for (ChunkSizeStats s : stats) {
                    sumSafe += s.safeChunkBytes();
                    maxDone = Math.max(maxDone, s.maxCompletedChunkBytes());
                    done += s.chunksCompleted();
                    bytes += s.averageCompletedChunkBytes() * s.chunksCompleted();
                }
                rows.add(String.format(Locale.ROOT, "| %d | %d | %d | %d | %d | %.1f |", n, sumSafe, sumSafe / n, maxDone,
                        done == 0 ? 0 : bytes / done, r.goodputBits(2000, seconds * 1000) / 1e6));
            }
        }
        System.out.println("\n| paths | sum of safe chunk sizes (paper: Max Size) | per path (paper: Avg Size) | largest completed chunk | avg completed chunk | goodput Mbit/s |");
        System.out.println("|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    /**
     * @return ms after {@code change} at which the first {@code windowMillis} window starting at or
     *     after the change reaches {@code mbit}, or -1
     */
    private static long recovery(WriteStream.Result r, long change, double mbit, long windowMillis) {
        for (long[] s : r.samples()) {
            if (s[0] < change) {
                continue;
            }
            long[] e = r.at(s[0] + windowMillis);
            if (e[0] < s[0] + windowMillis) {
                return -1;
            }
            if (r.goodputBits(s[0], e[0]) / 1e6 >= mbit) {
                return e[0] - change;
            }
        }
        return -1;
    }
}
