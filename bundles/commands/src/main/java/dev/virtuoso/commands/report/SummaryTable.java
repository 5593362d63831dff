package dev.virtuoso.commands.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.virtuoso.commands.cli.Units;

/** Prints phase results as a text table and writes them as CSV. Stateless. */
public final class SummaryTable {

    private SummaryTable() {
    }

    /**
     * Prints the table; the first row is the baseline of the speed-up column.
     *
     * @param out destination
     * @param rows the phases
     */
    public static void print(PrintStream out, List<PhaseResult> rows) {
        String fmt = "  %-26s %-5s %5s  %-30s %9s %8s %14s %14s %6s %8s%n";
        out.printf(Locale.ROOT, fmt, "phase", "op", "paths", "policy", "bytes", "time", "goodput", "capacity",
                "util", "speed-up");
        double base = rows.isEmpty() ? 0 : rows.get(0).goodput();
        for (PhaseResult r : rows) {
            out.printf(Locale.ROOT, fmt, r.name(), r.op(), r.paths(), r.policy(), Units.bytes(r.bytes()),
                    String.format(Locale.ROOT, "%.2f s", r.nanos() / 1e9), Units.rate(r.goodput()),
                    Units.rate(r.capacityBitsPerSecond()), String.format(Locale.ROOT, "%.1f%%", r.utilisation() * 100),
                    base > 0 ? String.format(Locale.ROOT, "%.2fx", r.goodput() / base) : "-");
        }
        out.println();
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-26s %-5s", "bytes per path", ""));
        int columns = rows.stream().mapToInt(r -> r.pathBytes().length).max().orElse(0);
        for (int p = 0; p < columns; p++) {
            head.append(String.format(Locale.ROOT, " %10s", "path " + p));
        }
        out.println(head);
        for (PhaseResult r : rows) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-26s %-5s", r.name(), r.op()));
            for (int p = 0; p < columns; p++) {
                line.append(String.format(Locale.ROOT, " %10s", p < r.pathBytes().length
                        ? Units.bytes(r.pathBytes()[p]) : "-"));
            }
            out.println(line);
        }
    }

    /**
     * Writes the rows as CSV.
     *
     * @param file destination
     * @param rows the phases
     * @throws IOException if it cannot be written
     */
    public static void writeCsv(Path file, List<PhaseResult> rows) throws IOException {
        List<String> lines = new ArrayList<>();
        int columns = rows.stream().mapToInt(r -> r.pathBytes().length).max().orElse(0);
        StringBuilder head = new StringBuilder("phase,op,paths,policy,bytes,seconds,goodput_bps,capacity_bps,utilisation");
        for (int p = 0; p < columns; p++) {
            head.append(",path").append(p).append("_bytes");
        }
        lines.add(head.toString());
        for (PhaseResult r : rows) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s,%s,%d,%s,%d,%.6f,%.0f,%d,%.4f",
                    r.name(), r.op(), r.paths(), r.policy(), r.bytes(), r.nanos() / 1e9, r.goodput(),
                    r.capacityBitsPerSecond(), r.utilisation()));
            for (int p = 0; p < columns; p++) {
                line.append(',').append(p < r.pathBytes().length ? r.pathBytes()[p] : 0);
            }
            lines.add(line.toString());
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
