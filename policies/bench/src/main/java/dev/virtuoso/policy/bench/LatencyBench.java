package dev.virtuoso.policy.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.policy.cc.fixed.FixedChunkPolicy;
import dev.virtuoso.policy.lb.proportional.ProportionalPolicy;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;

/**
 * perftest-style ping-pong latency (half the round trip, as {@code ib_send_lat} reports it), p50,
 * p99 and p99.9, for message sizes 8 B, 4 KiB, 64 KiB and 1 MiB, of:
 * <ul>
 * <li>{@code tcp}: a TCP socket pair (blocking reads, TCP_NODELAY);</li>
 * <li>{@code qp}: one RC QP per side on the same soft RNIC, raw verbs SEND/RECV
 * ({@link RawQpPingPong});</li>
 * <li>{@code mp_send}: MP_SEND/MP_RECV over a multipath connection of 1 or 4 paths;</li>
 * <li>{@code mp_write_notify}: MP_WRITE into the peer's region, then, after its completion (every
 * byte placed), an 8-byte MP_SEND as the notice ({@link MpPingPong}).</li>
 * </ul>
 * Each side's application thread spins on {@code pollCompletions} (with {@link Thread#yield()})
 * as the raw QP side spins on its CQ, so the two differ only by the multipath layer. The
 * connection uses what the binding makes the default (lb-proportional, cc-fixed) and the split
 * threshold given (default: ConnectOptions' own); the multipath rows are repeated for every engine
 * given: a backoff window ({@code EngineGroup}'s {@code activeSpinNanos}, in microseconds; 0 is the
 * engine without it), with the suffix {@code p} for an engine group run by the polling application
 * threads ({@code invokeOnPoll}, column {@code engine_driver} {@code poll}; else {@code agent}), and
 * report how often the engine agents parked per round trip.
 *
 * <pre>
 * LatencyBench [both|fabric|udp|veth|all] [ITERATIONS] [SPLIT_THRESHOLD] [SPIN_US[p][,SPIN_US[p]...]]
 * </pre>
 * Wires: {@code fabric} (in-process fabric), {@code udp} (the UDP wire over loopback addresses in
 * one process), {@code veth} (the UDP wire between two processes in two network namespaces joined
 * by veth pairs, {@link VethLatency}; needs root, skipped with a message otherwise); {@code both}
 * is fabric and udp, {@code all} adds veth. Defaults: both, 2000 iterations, ConnectOptions' split
 * threshold, the engine group's default window.
 */
public final class LatencyBench {
    static final int[] SIZES = {8, 4096, 65536, 1 << 20};
    static final String HEADER = "wire,system,paths,bytes,engine_spin_us,p50_us,p99_us,p999_us,samples,"
            + "agent_parks_per_rt,cq_events_per_rt,engine_driver";

    /**
     * One engine configuration of the multipath rows.
     *
     * @param spinMicros the engine group's backoff window, microseconds
     * @param invokeOnPoll whether the polling application threads run the engine's duty cycles
     */
    record Engine(long spinMicros, boolean invokeOnPoll) {
        Engine {
            if (spinMicros < 0) {
                throw new IllegalArgumentException("negative backoff window: " + spinMicros);
            }
        }

        /** @param token {@code SPIN_US} or {@code SPIN_US p} */
        static Engine parse(String token) {
            boolean poll = token.endsWith("p");
            return new Engine(Long.parseLong(poll ? token.substring(0, token.length() - 1) : token), poll);
        }

        @Override
        public String toString() {
            return spinMicros + (invokeOnPoll ? "p" : "");
        }

        String driver() {
            return invokeOnPoll ? "poll" : "agent";
        }
    }

    /** What one run measures: the same on both ends of a two-process run. */
    record Plan(int iterations, int threshold, Engine[] engines) {
        ConnectOptions options() {
            return ConnectOptions.builder().provider("soft").loadBalancer(ProportionalPolicy.NAME)
                    .congestionAvoidance(FixedChunkPolicy.NAME).splitThreshold(threshold).build();
        }

        String spins() {
            StringBuilder b = new StringBuilder();
            for (Engine e : engines) {
                b.append(b.length() > 0 ? "," : "").append(e);
            }
            return b.toString();
        }

        static Engine[] parseSpins(String s) {
            return Arrays.stream(s.split(",")).map(Engine::parse).toArray(Engine[]::new);
        }
    }

    private LatencyBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> wires = List.of("both", "fabric", "udp", "veth", "all");
        if (args.length > 4 || (args.length > 0 && !wires.contains(args[0]))) {
            System.err.println("usage: LatencyBench [both|fabric|udp|veth|all] [ITERATIONS] [SPLIT_THRESHOLD]"
                    + " [SPIN_US[p][,SPIN_US[p]...]]");
            System.exit(2);
        }
        String which = args.length > 0 ? args[0] : "both";
        Plan plan = new Plan(args.length > 1 ? Integer.parseInt(args[1]) : 2000,
                args.length > 2 ? Integer.parseInt(args[2]) : ConnectOptions.builder().build().splitThreshold(),
                args.length > 3 ? Plan.parseSpins(args[3])
                        : new Engine[] {new Engine(TimeUnit.NANOSECONDS.toMicros(EngineGroup.DEFAULT_ACTIVE_SPIN_NANOS),
                                false)});
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "# latency (half round trip, us); %d iterations per row (1 MiB: %d), split threshold"
                + " %d B, engines (backoff window us, p: run by the polling threads) %s, %s,"
                + " load average at start %s%n", plan.iterations(), iters(plan.iterations(), 1 << 20), plan.threshold(),
                plan.spins(), LatencyRig.softSettings(), loadAverage());
        out.println(HEADER);
        List<String> run = new ArrayList<>();
        if (!which.equals("veth")) {
            run.addAll(which.equals("both") || which.equals("all") ? List.of("fabric", "udp") : List.of(which));
        }
        for (String wire : run) {
            run(out, wire, plan);
        }
        if (which.equals("veth") || which.equals("all")) {
            VethLatency.run(out, plan);
        }
        out.printf(Locale.ROOT, "# load average at the end %s%n", loadAverage());
    }

    private static void run(PrintStream out, String wire, Plan plan) throws Exception {
        boolean fabric = wire.equals("fabric");
        int iterations = plan.iterations();
        // TCP has no fabric: its rows are the kernel's loopback, repeated for each wire as a reference
        for (int size : SIZES) {
            report(out, wire, "tcp", 1, size, null, TcpPingPong.run(size, iters(iterations, size)), -1, -1);
        }
        try (LatencyRig rig = new LatencyRig(fabric, 1, new Engine(0, false))) {
            for (int size : SIZES) {
                report(out, wire, "qp", 1, size, null, RawQpPingPong.run(rig, size, iters(iterations, size)), -1, -1);
            }
        }
        for (int paths : new int[] {1, 4}) {
            for (Engine spin : plan.engines()) {
                try (LatencyRig rig = new LatencyRig(fabric, paths, spin)) {
                    MultipathConnection[] c = rig.connect(plan.options());
                    for (boolean writeNotify : new boolean[] {false, true}) {
                        for (int size : SIZES) {
                            int n = iters(iterations, size);
                            long parks = rig.engines.parks();
                            long events = rig.engines.completionEvents();
                            long[] s = MpPingPong.run(c, size, n, writeNotify);
                            int rt = MpPingPong.total(n);
                            report(out, wire, writeNotify ? "mp_write_notify" : "mp_send", paths, size, spin, s,
                                    (double) (rig.engines.parks() - parks) / rt,
                                    (double) (rig.engines.completionEvents() - events) / rt);
                        }
                    }
                }
            }
        }
    }

    /** Fewer round trips for 1 MiB (each is milliseconds), at least 200. */
    static int iters(int iterations, int size) {
        return size >= (1 << 20) ? Math.max(200, iterations / 10) : iterations;
    }

    /**
     * One CSV row; {@code engine} null, {@code parksPerRoundTrip} and {@code eventsPerRoundTrip}
     * negative for rows without an engine (printed as "-"): how often the engine agents (both ends)
     * parked, and how many completions reached them as CQ events through the event threads, per
     * round trip (warm-up included).
     */
    static void report(PrintStream out, String wire, String system, int paths, int size, Engine engine,
            long[] halfRtt, double parksPerRoundTrip, double eventsPerRoundTrip) {
        long[] s = halfRtt.clone();
        Arrays.sort(s);
        out.printf(Locale.ROOT, "%s,%s,%d,%d,%s,%.1f,%.1f,%.1f,%d,%s,%s,%s%n", wire, system, paths, size,
                engine == null ? "-" : Long.toString(engine.spinMicros()), pct(s, 0.50) / 1e3, pct(s, 0.99) / 1e3,
                pct(s, 0.999) / 1e3, s.length,
                perRoundTrip(parksPerRoundTrip), perRoundTrip(eventsPerRoundTrip),
                engine == null ? "-" : engine.driver());
        out.flush();
    }

    private static String perRoundTrip(double v) {
        return v < 0 ? "-" : String.format(Locale.ROOT, "%.2f", v);
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
}
