package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.virtuoso.api.PathStats;

/** perftest-style output of the bench: header block, result table, and the same as JSON. Stateless. */
final class BenchReport {

    static final String RULE = "-".repeat(87);

    private BenchReport() {
    }

    static void header(PrintStream out, BenchOptions o, BenchEndpoint e, String peer) {
        out.println(RULE);
        out.printf(Locale.ROOT, "%s%n", center(o.op().title() + (o.latency() ? " Latency" : " BW")
                + " Test (Virtuoso multipath)"));
        out.printf(Locale.ROOT, " %-20s : %s%n", "Side", o.client() ? "client" : "server");
        out.printf(Locale.ROOT, " %-20s : %d%n", "Number of paths", e.vnics.size());
        out.printf(Locale.ROOT, " %-20s : %s%n", "Transport type", e.transport());
        out.printf(Locale.ROOT, " %-20s : %s (%s)%n", "Device", e.device, e.provider);
        out.printf(Locale.ROOT, " %-20s : %s%n", "Local vNICs",
                String.join(" ", e.vnics.stream().map(InetAddress::getHostAddress).toList()));
        out.printf(Locale.ROOT, " %-20s : %s%n", "Load balancer", e.options.loadBalancer());
        out.printf(Locale.ROOT, " %-20s : %s%n", "Congestion avoid.", e.options.congestionAvoidance());
        out.printf(Locale.ROOT, " %-20s : %d[B]%n", "Mtu", e.options.mtu());
        out.printf(Locale.ROOT, " %-20s : %s%n", "Engine (configured)", e.engine);
        out.printf(Locale.ROOT, " %-20s : %d%n", "Tx depth", o.latency() ? 1 : o.txDepth());
        if (o.latency()) {
            out.printf(Locale.ROOT, " %-20s : %d%n", "Rx depth", o.rxDepth());
        }
        if (o.client() && o.warmup() > 0) {
            out.printf(Locale.ROOT, " %-20s : %d iterations per size on a first connection%n", "Warm-up", o.warmup());
        }
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

    static String json(BenchOptions o, BenchEndpoint e, List<BenchResult> rows, List<ChunkStatsReader.PathChunks> chunks) {
        return json(o, e, rows, chunks, null);
    }

    /**
     * @param defaults what {@code default} stands for (load balancer, congestion avoidance), or
     *     {@code null} if not known
     */
    static String json(BenchOptions o, BenchEndpoint e, List<BenchResult> rows, List<ChunkStatsReader.PathChunks> chunks,
            String[] defaults) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"side\": \"client\",\n");
        sb.append("  \"test\": \"").append(o.op().name().toLowerCase(Locale.ROOT)).append("\",\n");
        endpointJson(sb, e);
        if (e.connection != null) {
            sb.append("  \"load_balancer_in_use\": \"").append(escape(e.connection.loadBalancer())).append("\",\n");
            sb.append("  \"congestion_avoidance_in_use\": \"").append(escape(e.connection.congestionAvoidance()))
                    .append("\",\n");
        }
        if (defaults != null) {
            sb.append("  \"default_stands_for\": {\"load_balancer\": \"").append(escape(defaults[0]))
                    .append("\", \"congestion_avoidance\": \"").append(escape(defaults[1])).append("\"},\n");
        }
        sb.append("  \"tx_depth\": ").append(o.txDepth()).append(",\n");
        sb.append("  \"warmup_iterations\": ").append(o.warmup()).append(",\n");
        sb.append("  \"rate_bps\": ").append(o.rateBitsPerSecond()).append(",\n");
        sb.append("  \"unit\": \"").append(o.unit()).append("\",\n");
        sb.append("  \"results\": [");
        for (int i = 0; i < rows.size(); i++) {
            BenchResult r = rows.get(i);
            sb.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT,
                    "    {\"bytes\": %d, \"iterations\": %d, \"bw_peak\": %.4f, \"bw_average\": %.4f, "
                            + "\"msg_rate_mpps\": %.6f, \"seconds\": %.6f, \"cpu\": %s",
                    r.bytes(), r.iterations(), r.peak(), r.average(), r.msgRateMpps(), r.seconds(), cpuJson(r.cpu())));
            if (r.fctSeconds().length > 0) {
                sb.append(", \"fct_s\": [");
                for (int k = 0; k < r.fctSeconds().length; k++) {
                    sb.append(k == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.6f", r.fctSeconds()[k]));
                }
                sb.append("], \"posted_s\": [");
                for (int k = 0; k < r.postedSeconds().length; k++) {
                    sb.append(k == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.6f", r.postedSeconds()[k]));
                }
                sb.append(']');
            }
            sb.append(", \"start_epoch_ms\": ").append(r.startEpochMillis());
            sb.append('}');
        }
        sb.append("\n  ]");
        if (e.connection != null) {
            // per path at the end: what each carried and what the monitor measured
            sb.append(",\n  \"path_stats\": [");
            List<PathStats> ps = e.connection.pathStats();
            for (int i = 0; i < ps.size(); i++) {
                PathStats p = ps.get(i);
                sb.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT,
                        "    {\"path\": %d, \"bytes_completed\": %d, \"probed_bps\": %.0f, \"estimated_bps\": %.0f}",
                        p.pathId(), p.bytesCompleted(), p.probedCapacity() * 8, p.estimatedRate() * 8));
            }
            sb.append("\n  ]");
        }
        if (!chunks.isEmpty()) {
            sb.append(",\n  \"chunk_stats\": [");
            for (int i = 0; i < chunks.size(); i++) {
                ChunkStatsReader.PathChunks p = chunks.get(i);
                sb.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT,
                        "    {\"path\": %d, \"phase\": \"%s\", \"safe_chunk_bytes\": %d, \"max_completed_chunk_bytes\": %d, "
                                + "\"avg_completed_chunk_bytes\": %d, \"chunks_completed\": %d, \"losses\": %d}",
                        p.path(), escape(p.phase()), p.safeBytes(), p.maxCompletedBytes(), p.avgCompletedBytes(),
                        p.completed(), p.losses()));
            }
            sb.append("\n  ]");
        }
        return sb.append("\n}\n").toString();
    }

    /**
     * The server's JSON: its CPU time from the client's HELLO to its DONE (the transfer, seen from
     * the passive side).
     */
    static String serverJson(BenchOptions shown, BenchEndpoint e, double seconds, CpuUsage cpu) {
        return "{\n  \"side\": \"server\",\n  \"test\": \"" + shown.op().name().toLowerCase(Locale.ROOT) + "\",\n"
                + "  \"provider\": \"" + e.provider + "\",\n  \"paths\": " + e.vnics.size() + ",\n"
                + String.format(Locale.ROOT, "  \"seconds\": %.6f,\n", seconds) + "  \"cpu\": " + cpuJson(cpu) + "\n}\n";
    }

    static String cpuJson(CpuUsage c) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "{\"process_s\": %.4f, \"bench_thread_s\": %.4f, \"virtuoso_threads_s\": %.4f, \"machine_s\": %.4f, "
                        + "\"by_role_s\": {",
                c.processSeconds(), c.benchThreadSeconds(), c.virtuosoSeconds(), c.machineSeconds()));
        int i = 0;
        for (var en : c.virtuosoThreadSeconds().entrySet()) {
            sb.append(i++ == 0 ? "" : ", ").append('"').append(escape(en.getKey())).append("\": ")
                    .append(String.format(Locale.ROOT, "%.4f", en.getValue()));
        }
        return sb.append("}}").toString();
    }

    /** The table's footer: CPU time per size and, under cc-chunkprobe, the chunk sizes per path. */
    static void cpuAndChunks(PrintStream out, List<BenchResult> rows, List<ChunkStatsReader.PathChunks> chunks) {
        for (BenchResult r : rows) {
            out.printf(Locale.ROOT, " CPU %d B x %d: process %.3f s, virtuoso threads %.3f s (%s), bench thread %.3f s%n",
                    r.bytes(), r.iterations(), r.cpu().processSeconds(), r.cpu().virtuosoSeconds(),
                    r.cpu().rolesText(), r.cpu().benchThreadSeconds());
        }
        for (ChunkStatsReader.PathChunks p : chunks) {
            out.printf(Locale.ROOT, " cc-chunkprobe path %d: %s, safe %d B, max %d B, avg %d B, %d chunks, %d losses%n",
                    p.path(), p.phase(), p.safeBytes(), p.maxCompletedBytes(), p.avgCompletedBytes(), p.completed(),
                    p.losses());
        }
    }

    static void writeJson(Path file, String json) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, json, StandardCharsets.UTF_8);
    }

    /** The endpoint's provider, device, paths and policies as JSON members (both tests' reports). */
    static void endpointJson(StringBuilder sb, BenchEndpoint e) {
        sb.append("  \"provider\": \"").append(e.provider).append("\",\n");
        sb.append("  \"device\": \"").append(escape(e.device)).append("\",\n");
        sb.append("  \"paths\": ").append(e.vnics.size()).append(",\n");
        sb.append("  \"load_balancer\": \"").append(escape(e.options.loadBalancer())).append("\",\n");
        sb.append("  \"congestion_avoidance\": \"").append(escape(e.options.congestionAvoidance())).append("\",\n");
    }

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String center(String s) {
        int pad = Math.max(0, (RULE.length() - s.length()) / 2);
        return " ".repeat(pad) + s;
    }
}
