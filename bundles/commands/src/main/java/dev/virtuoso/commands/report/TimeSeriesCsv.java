package dev.virtuoso.commands.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.virtuoso.commands.demo.Sample;

/**
 * Writes throughput samples as CSV: seconds, phase, goodput and one column per path, in Mbit/s, then
 * per path the bytes the phase has moved over it so far.
 */
public final class TimeSeriesCsv {

    private TimeSeriesCsv() {
    }

    /**
     * @param file destination
     * @param samples the samples
     * @param columns number of path columns
     * @throws IOException if it cannot be written
     */
    public static void write(Path file, List<Sample> samples, int columns) throws IOException {
        List<String> lines = new ArrayList<>();
        StringBuilder head = new StringBuilder("seconds,phase,goodput_mbps");
        for (int p = 0; p < columns; p++) {
            head.append(",path").append(p).append("_mbps");
        }
        for (int p = 0; p < columns; p++) {
            head.append(",path").append(p).append("_bytes");
        }
        lines.add(head.toString());
        for (Sample s : samples) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%.3f,%s,%.3f", s.seconds(), s.phase(),
                    s.totalBitsPerSecond() / 1e6));
            for (int p = 0; p < columns; p++) {
                double v = p < s.pathBitsPerSecond().length ? s.pathBitsPerSecond()[p] : 0;
                sb.append(String.format(Locale.ROOT, ",%.3f", v / 1e6));
            }
            for (int p = 0; p < columns; p++) {
                sb.append(',').append(p < s.pathBytes().length ? s.pathBytes()[p] : 0);
            }
            lines.add(sb.toString());
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
