package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** perftest-style output of the bench: header block, result table, and the same as JSON. Stateless. */
final class BenchReport {

    static final String RULE = "-".repeat(87);

    private BenchReport() {
    }

    static void header(PrintStream out, BenchOptions o, BenchEndpoint e, String peer) {
        out.println(RULE);
        out.printf(Locale.ROOT, "%s%n", center(o.op().title() + " BW Test (Virtuoso multipath)"));
        out.printf(Locale.ROOT, " %-20s : %s%n", "Side", o.client() ? "client" : "server");
        out.printf(Locale.ROOT, " %-20s : %d%n", "Number of paths", e.vnics.size());
        out.printf(Locale.ROOT, " %-20s : %s%n", "Transport type", e.transport());
        out.printf(Locale.ROOT, " %-20s : %s (%s)%n", "Device", e.device, e.provider);
        out.printf(Locale.ROOT, " %-20s : %s%n", "Local vNICs",
                String.join(" ", e.vnics.stream().map(InetAddress::getHostAddress).toList()));
        out.printf(Locale.ROOT, " %-20s : %s%n", "Load balancer", e.options.loadBalancer());
        out.printf(Locale.ROOT, " %-20s : %s%n", "Congestion avoid.", e.options.congestionAvoidance());
        out.printf(Locale.ROOT, " %-20s : %d[B]%n", "Mtu", e.options.mtu());
        out.printf(Locale.ROOT, " %-20s : %d%n", "Tx depth", o.txDepth());
        out.printf(Locale.ROOT, " %-20s : %s%n", o.client() ? "Server" : "Client", peer);
        out.println(RULE);
    }

    static void tableHead(PrintStream out, BenchOptions o) {
        out.printf(Locale.ROOT, " %-10s %-14s %-18s %-20s %s%n", "#bytes", "#iterations", "BW peak[" + o.unit() + "]",
                "BW average[" + o.unit() + "]", "MsgRate[Mpps]");
    }

    static void row(PrintStream out, BenchResult r) {
        out.printf(Locale.ROOT, " %-10d %-14d %-18.2f %-20.2f %.6f%n", r.bytes(), r.iterations(), r.peak(), r.average(),
                r.msgRateMpps());
    }

    static String json(BenchOptions o, BenchEndpoint e, List<BenchResult> rows) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"test\": \"").append(o.op().name().toLowerCase(Locale.ROOT)).append("\",\n");
        sb.append("  \"provider\": \"").append(e.provider).append("\",\n");
        sb.append("  \"device\": \"").append(escape(e.device)).append("\",\n");
        sb.append("  \"paths\": ").append(e.vnics.size()).append(",\n");
        sb.append("  \"load_balancer\": \"").append(escape(e.options.loadBalancer())).append("\",\n");
        sb.append("  \"congestion_avoidance\": \"").append(escape(e.options.congestionAvoidance())).append("\",\n");
        sb.append("  \"tx_depth\": ").append(o.txDepth()).append(",\n");
        sb.append("  \"unit\": \"").append(o.unit()).append("\",\n");
        sb.append("  \"results\": [");
        for (int i = 0; i < rows.size(); i++) {
            BenchResult r = rows.get(i);
            sb.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT,
                    "    {\"bytes\": %d, \"iterations\": %d, \"bw_peak\": %.4f, \"bw_average\": %.4f, \"msg_rate_mpps\": %.6f}",
                    r.bytes(), r.iterations(), r.peak(), r.average(), r.msgRateMpps()));
        }
        return sb.append("\n  ]\n}\n").toString();
    }

    static void writeJson(Path file, String json) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, json, StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String center(String s) {
        int pad = Math.max(0, (RULE.length() - s.length()) / 2);
        return " ".repeat(pad) + s;
    }
}
