package dev.virtuoso.itests.robustness.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.LinkCounter;

/** The soak's report: counters gathered into maps, the JSON and CSV files, the printed summary. */
final class SoakReport {
    private SoakReport() {
    }

    /** @return every verbs counter of the device, by name */
    static Map<String, Object> counters(IbvContext c) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (VerbsCounter k : VerbsCounter.values()) {
            m.put(k.name(), c.counters().get(k));
        }
        return m;
    }

    /** @return every link counter summed over the links and both directions, plus the loss ratio */
    static Map<String, Object> fabricCounters(List<FabricLink> links) {
        Map<LinkCounter, Long> sum = new EnumMap<>(LinkCounter.class);
        for (FabricLink l : links) {
            for (LinkCounter k : LinkCounter.values()) {
                sum.merge(k, l.counter(k), Long::sum);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        sum.forEach((k, v) -> m.put(k.name(), v));
        long offered = sum.get(LinkCounter.OFFERED_PACKETS);
        m.put("lossRatio", offered == 0 ? 0.0 : (double) sum.get(LinkCounter.DROPPED_LOSS) / offered);
        return m;
    }

    /** Writes {@code soak-summary.json} and {@code soak-progress.csv} into {@code dir}. */
    static void write(Path dir, Map<String, Object> report, List<String> csv) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("soak-summary.json"), Json.write(report));
        Files.write(dir.resolve("soak-progress.csv"), csv);
    }

    /** Prints the summary lines of {@code report} to standard output. */
    @SuppressWarnings("unchecked")
    static void printSummary(Path dir, Map<String, Object> report, boolean passed, ProcessSnapshot base,
            ProcessSnapshot after, ProcessSnapshot teardown, ProcessSnapshot beforeSetup) {
        Map<String, Object> t = (Map<String, Object>) report.get("totals");
        Map<String, Object> f = (Map<String, Object>) report.get("fabric");
        Map<String, Object> da = (Map<String, Object>) report.get("deviceA");
        Map<String, Object> db = (Map<String, Object>) report.get("deviceB");
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "soak %s after %.1f s (load average %s)%n", report.get("verdict"),
                report.get("elapsedSeconds"), report.get("loadAverage1m")));
        s.append("  totals: ").append(t).append('\n');
        s.append("  per kind: ").append(report.get("perKind")).append('\n');
        s.append("  paths: ").append(report.get("pathTotals")).append('\n');
        s.append("  fabric: offered=").append(f.get("OFFERED_PACKETS")).append(" dropped_loss=")
                .append(f.get("DROPPED_LOSS")).append(" dropped_tail=").append(f.get("DROPPED_TAIL"))
                .append(" dropped_rx_overflow=").append(f.get("DROPPED_RX_OVERFLOW"))
                .append(String.format(Locale.ROOT, " loss ratio=%.4f%n", f.get("lossRatio")));
        for (String name : List.of("a", "b")) {
            Map<String, Object> c = name.equals("a") ? da : db;
            s.append("  device ").append(name).append(": retransmitted=").append(c.get("RETRANSMITTED_PACKETS"))
                    .append(" timeouts=").append(c.get("RETRANSMIT_TIMEOUTS")).append(" nak_seq_sent=")
                    .append(c.get("NAK_SEQ_SENT")).append(" duplicates=").append(c.get("DUPLICATE_REQUESTS"))
                    .append(" drop_psn_out_of_window=").append(c.get("DROP_PSN_OUT_OF_WINDOW")).append('\n');
        }
        s.append("  process: before setup ").append(beforeSetup).append("; baseline ").append(base)
                .append("; after run ").append(after).append("; after teardown ").append(teardown).append('\n');
        for (Object d : (List<Object>) report.get("details")) {
            s.append("  ").append(d).append('\n');
        }
        s.append("  report: ").append(dir.resolve("soak-summary.json")).append(", ")
                .append(dir.resolve("soak-progress.csv"));
        System.out.println(s);
        if (!passed) {
            System.out.println("soak: FAIL");
        }
    }

    /** @return an insertion-ordered map of key, value pairs */
    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
