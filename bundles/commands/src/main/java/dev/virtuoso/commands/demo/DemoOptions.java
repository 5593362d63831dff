package dev.virtuoso.commands.demo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.cli.Units;

/**
 * Settings of {@code virtuoso demo}, parsed from its command line. Immutable.
 *
 * @param plan the fabric: one link per path with its rate
 * @param singleBytes bytes MP_WRITten over the best single path
 * @param writeBytes bytes MP_WRITten over every path (the policy is swapped halfway)
 * @param sendBytes bytes MP_SENT over every path
 * @param wrBytes bytes per MP work request
 * @param window MP work requests outstanding
 * @param before load balancer at the start
 * @param after load balancer after the swap
 * @param out results directory, or {@code null} for {@code results/} under the launcher's home
 * @param chart whether to draw the PNG
 */
public record DemoOptions(FabricPlan plan, long singleBytes, long writeBytes, long sendBytes, int wrBytes,
        int window, String before, String after, Path out, boolean chart) {

    /** Default path rates, cycled when more paths are asked for. */
    static final List<String> DEFAULT_RATES = List.of("300m", "150m", "100m", "50m");

    /** The command line of {@code virtuoso demo}. */
    public static final CommandLineSpec SPEC = new CommandLineSpec("virtuoso demo", "", 0, 0)
            .option('q', "paths", "N", "4", "number of paths (rate-limited links) between the two hosts")
            .option('r', "rates", "LIST", String.join(",", DEFAULT_RATES),
                    "link rate of each path, e.g. 300m,150m,100m,50m (bit/s, k/m/g)")
            .option((char) 0, "delay", "MICROS", "100", "one-way delay of every link, microseconds")
            .option((char) 0, "single", "SIZE", "64M", "bytes MP_WRITten over the best single path")
            .option((char) 0, "write", "SIZE", "192M", "bytes MP_WRITten over all paths; policy swapped halfway")
            .option((char) 0, "send", "SIZE", "64M", "bytes MP_SENT over all paths")
            .option('s', "size", "SIZE", "4M", "bytes per MP work request")
            .option('t', "window", "N", "8", "MP work requests outstanding")
            .option((char) 0, "before", "POLICY", "lb-roundrobin", "load balancer until the swap")
            .option((char) 0, "after", "POLICY", "lb-adaptive", "load balancer after the swap")
            .option('o', "out", "DIR", null, "results directory (default: results/ in the repository)")
            .flag((char) 0, "no-chart", "do not draw the PNG chart");

    /**
     * Parses the demo's arguments.
     *
     * @param a parsed command line (not a help request)
     * @return the options
     * @throws IllegalArgumentException if a value is malformed or inconsistent
     */
    public static DemoOptions from(ParsedArgs a) {
        List<String> rates;
        if (a.has("rates")) {
            rates = List.of(a.value("rates").split(","));
            if (a.has("paths") && a.intValue("paths", 1, FabricPlan.MAX_PATHS) != rates.size()) {
                throw new CommandError("--paths " + a.value("paths") + " but --rates lists "
                        + rates.size() + " rates");
            }
        } else {
            int n = a.intValue("paths", 1, FabricPlan.MAX_PATHS);
            rates = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                rates.add(DEFAULT_RATES.get(i % DEFAULT_RATES.size()));
            }
        }
        if (rates.size() > FabricPlan.MAX_PATHS) {
            throw new CommandError("at most " + FabricPlan.MAX_PATHS + " paths");
        }
        List<Long> bps = new ArrayList<>();
        for (String r : rates) {
            bps.add(Units.parseRate(r, "--rates"));
        }
        int delay = a.intValue("delay", 0, 1_000_000);
        long wr = a.size("size", 4096, 64L << 20);
        int window = a.intValue("window", 1, 64);
        long single = a.size("single", 0, 16L << 30);
        long write = a.size("write", 0, 16L << 30);
        long send = a.size("send", 0, 16L << 30);
        if (wr * window > 512L << 20) {
            throw new CommandError("--size x --window must stay within 512 MiB per ring: "
                    + Units.bytes(wr) + " x " + window);
        }
        String out = a.value("out");
        return new DemoOptions(new FabricPlan(bps, delay), single, write, send, (int) wr, window, a.value("before"),
                a.value("after"), out == null ? null : Path.of(out), !a.flag("no-chart"));
    }

    /** @return bytes of each side's ring: one slot per outstanding work request */
    public int ringBytes() {
        return wrBytes * window;
    }
}
