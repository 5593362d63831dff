package dev.virtuoso.policy.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.virtuoso.api.MultipathConnection;

/**
 * Small-message latency of MP_SEND against one raw QP, made robust to the scheduling regimes of a
 * small machine: on this 2-core VM a whole row of round trips runs at one of two or three p50
 * levels (tens of microseconds apart) depending on how the busy threads happen to share the cores,
 * so one row per system compares regimes, not systems. Here every system's rig stays open and
 * their rows alternate, round after round; the summary row of each system is the median over the
 * rounds of its rows' p50 (and p99), beside its ratio to the raw QP's median.
 *
 * <pre>
 * latency-rounds [both|fabric|udp] [ROUNDS] [ITERATIONS] [ENGINES] [RX_DEPTH]
 * </pre>
 * ENGINES as in {@link LatencyBench} ({@code 250,250p}: the default engine and the same engine run
 * by the polling threads). Sizes 8 B and 4 KiB (below the split threshold: a message goes whole on
 * one path); 1 and 4 paths. Defaults: both wires, 7 rounds, 2000 round trips per row, {@code
 * 250,250p}, RX_DEPTH 1 (MP_RECVs each side keeps posted ahead, perftest's {@code --rx-depth}; the
 * raw QP keeps one). Standard output is the CSV; {@code round} is the round's number or {@code median}.
 */
public final class RoundsLatency {
    static final String HEADER = "wire,system,paths,bytes,engine_spin_us,engine_driver,round,p50_us,p99_us,"
            + "p50_ratio_to_qp";
    private static final int[] SIZES = {8, 4096};

    private RoundsLatency() {
    }

    /** One system's rows of one size across the rounds. */
    private record Row(String system, int paths, int size, LatencyBench.Engine engine, List<double[]> rounds) {
        String key() {
            return system + "," + paths + "," + size + "," + (engine == null ? "-,-" : engine.spinMicros() + ","
                    + engine.driver());
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> wires = List.of("both", "fabric", "udp");
        if (args.length > 5 || (args.length > 0 && !wires.contains(args[0]))) {
            System.err.println("usage: latency-rounds [both|fabric|udp] [ROUNDS] [ITERATIONS] [SPIN_US[p],...]"
                    + " [RX_DEPTH]");
            System.exit(2);
        }
        String which = args.length > 0 ? args[0] : "both";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        LatencyBench.Engine[] engines = LatencyBench.Plan.parseSpins(args.length > 3 ? args[3] : "250,250p");
        int rxDepth = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        if (rounds < 1 || iterations < 10 || rxDepth < 1) {
            throw new IllegalArgumentException("at least 1 round of 10 round trips, receive depth at least 1: "
                    + rounds + ", " + iterations + ", " + rxDepth);
        }
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "# latency in rounds (half round trip, us): %d rounds of %d round trips per row,"
                + " engines %s, MP_RECVs posted ahead %d, %s, load average at start %s%n",
                rounds, iterations, new LatencyBench.Plan(iterations, 0, engines).spins(), rxDepth,
                LatencyRig.softSettings(), LatencyBench.loadAverage());
        out.println(HEADER);
        for (String wire : which.equals("both") ? List.of("fabric", "udp") : List.of(which)) {
            run(out, wire, rounds, iterations, engines, rxDepth);
        }
        out.printf(Locale.ROOT, "# load average at the end %s%n", LatencyBench.loadAverage());
    }

    static void run(PrintStream out, String wire, int rounds, int iterations, LatencyBench.Engine[] engines,
            int rxDepth) throws Exception {
        boolean fabric = wire.equals("fabric");
        List<AutoCloseable> open = new ArrayList<>();
        try {
            LatencyRig raw = new LatencyRig(fabric, 1, new LatencyBench.Engine(0, false));
            open.add(raw);
            Map<String, MultipathConnection[]> connections = new LinkedHashMap<>();
            Map<String, Row> rows = new LinkedHashMap<>();
            for (int size : SIZES) {
                Row r = new Row("qp", 1, size, null, new ArrayList<>());
                rows.put(r.key(), r);
            }
            for (int paths : new int[] {1, 4}) {
                for (LatencyBench.Engine e : engines) {
                    LatencyRig rig = new LatencyRig(fabric, paths, e);
                    open.add(rig);
                    MultipathConnection[] c = rig.connect(new LatencyBench.Plan(iterations, 65536, engines).options());
                    for (int size : SIZES) {
                        Row r = new Row("mp_send", paths, size, e, new ArrayList<>());
                        rows.put(r.key(), r);
                        connections.put(r.key(), c);
                    }
                }
            }
            for (int round = 1; round <= rounds; round++) {
                for (Row r : rows.values()) {
                    long[] s = r.system().equals("qp") ? RawQpPingPong.run(raw, r.size(), iterations)
                            : MpPingPong.run(connections.get(r.key()), r.size(), iterations, false, rxDepth);
                    Arrays.sort(s);
                    double[] p = {LatencyBench.pct(s, 0.50) / 1e3, LatencyBench.pct(s, 0.99) / 1e3};
                    r.rounds().add(p);
                    print(out, wire, r, Integer.toString(round), p, Double.NaN);
                }
            }
            for (Row r : rows.values()) {
                double[] m = {median(r.rounds(), 0), median(r.rounds(), 1)};
                double qp = median(rows.get(new Row("qp", 1, r.size(), null, null).key()).rounds(), 0);
                print(out, wire, r, "median", m, m[0] / qp);
            }
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    static double median(List<double[]> rounds, int column) {
        double[] v = rounds.stream().mapToDouble(p -> p[column]).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static void print(PrintStream out, String wire, Row r, String round, double[] p, double ratio) {
        out.printf(Locale.ROOT, "%s,%s,%s,%.1f,%.1f,%s%n", wire, r.key(), round, p[0], p[1],
                Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2f", ratio));
        out.flush();
    }
}
