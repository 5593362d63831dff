package dev.virtuoso.commands.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The latency test's table (perftest's {@code ib_send_lat} columns) and JSON. Stateless. */
final class LatencyReport {

    private LatencyReport() {
    }

    static void tableHead(PrintStream out) {
        out.printf(Locale.ROOT, " %-10s %-12s %-13s %-13s %-16s %-13s %-14s %-22s %s%n", "#bytes", "#iterations",
                "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]",
                "99.9% percentile[usec]");
    }

    static void row(PrintStream out, LatencyResult r) {
        out.printf(Locale.ROOT, " %-10d %-12d %-13.2f %-13.2f %-16.2f %-13.2f %-14.2f %-22.2f %.2f%n", r.bytes(),
                r.iterations(), r.min(), r.max(), r.typical(), r.average(), r.stdev(), r.p99(), r.p999());
    }

    static String json(BenchOptions o, BenchEndpoint e, List<LatencyResult> rows) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"side\": \"client\",\n");
        // perftest's names: send_lat, and write_lat for MP_WRITE with its notice
        sb.append("  \"test\": \"").append(o.op() == BenchOptions.Op.WRITE ? "write_lat" : "send_lat").append("\",\n");
        BenchReport.endpointJson(sb, e);
        sb.append("  \"engine\": \"").append(BenchReport.escape(e.engine)).append("\",\n");
        sb.append("  \"warmup_iterations\": ").append(o.warmup()).append(",\n");
        sb.append("  \"rx_depth\": ").append(o.rxDepth()).append(",\n");
        sb.append("  \"unit\": \"usec, half round trip\",\n");
        sb.append("  \"results\": [");
        for (int i = 0; i < rows.size(); i++) {
            LatencyResult r = rows.get(i);
            sb.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT,
                    "    {\"bytes\": %d, \"iterations\": %d, \"t_min\": %.3f, \"t_max\": %.3f, \"t_typical\": %.3f, "
                            + "\"t_avg\": %.3f, \"t_stdev\": %.3f, \"t_p99\": %.3f, \"t_p999\": %.3f}",
                    r.bytes(), r.iterations(), r.min(), r.max(), r.typical(), r.average(), r.stdev(), r.p99(),
                    r.p999()));
        }
        return sb.append("\n  ]\n}\n").toString();
    }
}
