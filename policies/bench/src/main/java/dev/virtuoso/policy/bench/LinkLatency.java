package dev.virtuoso.policy.bench;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * How close the in-process fabric's timing comes to a link's: a raw QP's SEND ping-pong over one
 * fabric link (half the round trip, as {@code ib_send_lat} reports it) beside the time the link
 * needs to carry the message's payload, soft RNICs run by the polling threads.
 *
 * <pre>
 * latency-link [LINK] [ITERATIONS]
 * </pre>
 * LINK: the link's spec (default {@code rate=1g}); ITERATIONS: round trips per size after a tenth
 * as warm-up (default 300). Sizes 4 KiB to 128 KiB. Standard output is the CSV.
 */
final class LinkLatency {
    static final String HEADER = "link,bytes,p10_us,p50_us,p90_us,payload_time_us";
    static final int[] SIZES = {4096, 16384, 32768, 65536, 131072};

    private LinkLatency() {
    }

    static void main(String[] args) throws Exception {
        if (args.length > 2) {
            System.err.println("usage: latency-link [LINK] [ITERATIONS]");
            System.exit(2);
        }
        String link = args.length > 0 ? args[0] : "rate=1g";
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        System.out.printf(Locale.ROOT, "# raw QP SEND ping-pong over one fabric link '%s', %d round trips per size,"
                + " soft RNICs run by the polling threads, load average at start %s%n", link, iterations,
                LatencyBench.loadAverage());
        run(System.out, link, iterations);
    }

    static void run(PrintStream out, String linkText, int iterations) throws Exception {
        if (iterations < 10) {
            throw new IllegalArgumentException("at least 10 round trips: " + iterations);
        }
        LinkSpec link = LinkSpec.parse(linkText);
        out.println(HEADER);
        try (LatencyRig rig = new LatencyRig(true, 1, new LatencyBench.Engine(250, true), link, true)) {
            for (int size : SIZES) {
                long[] s = RawQpPingPong.run(rig, size, iterations);
                Arrays.sort(s);
                double payload = link.rateBitsPerSecond() == 0 ? 0 : size * 8e6 / link.rateBitsPerSecond();
                out.printf(Locale.ROOT, "%s,%d,%.1f,%.1f,%.1f,%.1f%n", linkText, size, LatencyBench.pct(s, 0.1) / 1e3,
                        LatencyBench.pct(s, 0.5) / 1e3, LatencyBench.pct(s, 0.9) / 1e3,
                        payload + link.delayNanos() / 1e3);
            }
        }
    }
}
