package dev.virtuoso.commands.scale;

import java.util.Locale;

/** The scale bench's table: one row per connection count. */
final class ScaleReport {
    static final String HEADER = String.format(Locale.ROOT, "%6s %8s %8s %9s %8s %8s %9s %9s %9s %9s %9s %9s %9s %7s  %s",
            "conns", "Gbit/s", "CPUs/GiB", "benchCPU", "threads", "peakRSS", "RSS/conn", "heap/conn", "dir/conn",
            "setupCPU", "2nd half", "setupWall", "iperf3", "ratio", "iperf3 CPUs/GiB")
            + String.format(Locale.ROOT, "%n%6s %8s %8s %9s %8s %8s %9s %9s %9s %9s %9s %9s %9s %7s", "", "", "", "s/GiB",
                    "before>", "MB", "KiB", "KiB", "KiB", "ms/conn", "ms/conn", "ms/conn", "Gbit/s", "");

    private ScaleReport() {
    }

    static String row(ScaleResult r) {
        String iperf = r.iperfGbits() < 0 ? r.iperfNote() : String.format(Locale.ROOT, "%.3f", r.iperfCpuPerGib());
        return String.format(Locale.ROOT, "%6d %8.2f %8.2f %9.2f %8s %8.0f %9.0f %9.0f %9.0f %9.2f %9.2f %9.2f %9s %7s  %s",
                r.connections(), r.gbits(), r.cpuPerGib(), r.benchCpuPerGib(), r.threadsBefore() + ">" + r.threads(),
                r.peakRssMb(), r.rssPerConnectionKib(), r.heapPerConnectionKib(), r.directPerConnectionKib(),
                r.setupCpuMs(), r.laterSetupCpuMs(), r.setupWallMs(), r.iperfGbits() < 0 ? "-" : String.format(Locale.ROOT, "%.2f", r.iperfGbits()),
                r.ratio() < 0 ? "-" : String.format(Locale.ROOT, "%.2f", r.ratio()), iperf);
    }
}
