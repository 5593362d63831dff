package dev.virtuoso.policy.bench;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Where the split threshold belongs, by latency: over {@link #PATHS} paths, the ping-pong of
 * {@link MpPingPong} (MP_SEND, and MP_WRITE + notice) for sizes from 4 KiB to 1 MiB, once with every
 * message whole on one path (split threshold above every size, 1 MiB slots: an MP_SEND goes as
 * one SEND into the peer's slot; MP_WRITE as WRITEs on one path) and once with every message
 * split over all paths (threshold 1 byte). The threshold belongs at the smallest size from which
 * splitting is faster.
 *
 * <pre>
 * latency-split [both|fabric|udp] [ITERATIONS] [FABRIC_LINK] [ENGINE]
 * </pre>
 * FABRIC_LINK: the fabric links' spec, e.g. {@code "rate=1g"} (default: unlimited, where every
 * path is served by the same soft RNIC thread, so a split gains no bandwidth and only costs chunks;
 * with a rate per link a split divides the serialisation time by the paths). ENGINE: the engine
 * group's backoff window in microseconds, with the suffix {@code p} for an engine run by the
 * polling threads (as {@code latency}'s SPIN_US; default: the group's default window, run by the
 * agents). With {@code -Dlatency.softInvokeOnPoll=true} and {@code p} each side of the ping-pong is
 * one busy thread: on a machine with few cores the agents and soft RNIC threads otherwise wait
 * for the spinning application threads' time slices (milliseconds).
 */
final class SplitLatency {
    static final int PATHS = 4;
    static final int[] SIZES = {4096, 16384, 32768, 65536, 131072, 262144, 1 << 20};

    private SplitLatency() {
    }

    static void main(String[] args) throws Exception {
        if (args.length > 4 || (args.length > 0 && !List.of("both", "fabric", "udp").contains(args[0]))) {
            System.err.println("usage: latency-split [both|fabric|udp] [ITERATIONS] [FABRIC_LINK] [ENGINE]");
            System.exit(2);
        }
        String which = args.length > 0 ? args[0] : "both";
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        String linkText = args.length > 2 ? args[2] : "";
        LatencyBench.Engine engine = args.length > 3 ? LatencyBench.Engine.parse(args[3])
                : new LatencyBench.Engine(TimeUnit.NANOSECONDS.toMicros(EngineGroup.DEFAULT_ACTIVE_SPIN_NANOS), false);
        run(System.out, which, iterations, linkText, engine);
    }

    static void run(PrintStream out, String which, int iterations, String linkText, LatencyBench.Engine engine)
            throws Exception {
        LinkSpec link = LinkSpec.parse(linkText);
        out.printf(Locale.ROOT, "# split latency (half round trip, us), %d paths, %d iterations per row (1 MiB: %d),"
                + " sizes %s, fabric links '%s', engine %s (%s), %s, load average at start %s%n", PATHS,
                iterations, LatencyBench.iters(iterations, 1 << 20), Arrays.toString(SIZES), linkText, engine,
                engine.driver(), LatencyRig.softSettings(), LatencyBench.loadAverage());
        out.println("wire,system,paths,bytes,placement,p50_us,p99_us,p999_us,samples");
        for (String wire : which.equals("both") ? List.of("fabric", "udp") : List.of(which)) {
            for (boolean split : new boolean[] {false, true}) {
                ConnectOptions o = new LatencyBench.Plan(iterations, split ? 1 : Integer.MAX_VALUE, new LatencyBench.Engine[0])
                        .options();
                if (!split) {
                    // whole: slots as large as they go (1 MiB), so every size up to 1 MiB is one SEND
                    o = o.toBuilder().smallMessageSlotBytes(ConnectOptions.MAX_SLOT_BYTES).build();
                }
                try (LatencyRig rig = new LatencyRig(wire.equals("fabric"), PATHS, engine, link)) {
                    MultipathConnection[] c = rig.connect(o);
                    for (boolean writeNotify : new boolean[] {false, true}) {
                        for (int size : SIZES) {
                            long[] s = MpPingPong.run(c, size, LatencyBench.iters(iterations, size), writeNotify);
                            Arrays.sort(s);
                            out.printf(Locale.ROOT, "%s,%s,%d,%d,%s,%.1f,%.1f,%.1f,%d%n", wire,
                                    writeNotify ? "mp_write_notify" : "mp_send", PATHS, size, split ? "split" : "whole",
                                    LatencyBench.pct(s, 0.5) / 1e3, LatencyBench.pct(s, 0.99) / 1e3,
                                    LatencyBench.pct(s, 0.999) / 1e3, s.length);
                            out.flush();
                        }
                    }
                }
            }
        }
        out.printf(Locale.ROOT, "# load average at the end %s (engine %s)%n", LatencyBench.loadAverage(), engine);
    }
}
