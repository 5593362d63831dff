package dev.virtuoso.commands.cli;

import java.util.Locale;

/** Parsing and printing of sizes, counts and rates as people type and read them. Stateless. */
public final class Units {

    private Units() {
    }

    /**
     * Parses a byte size: a non-negative integer with an optional binary suffix K, M, G (also KB,
     * KiB, ...), case-insensitive.
     *
     * @param text the size
     * @param what name for the error message
     * @return bytes
     * @throws IllegalArgumentException if malformed or above {@link Long#MAX_VALUE}
     */
    public static long parseSize(String text, String what) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long mult = 1;
        String digits = t;
        for (String[] suffix : new String[][] {{"KIB", "1024"}, {"MIB", "1048576"}, {"GIB", "1073741824"},
                {"KB", "1024"}, {"MB", "1048576"}, {"GB", "1073741824"}, {"K", "1024"}, {"M", "1048576"},
                {"G", "1073741824"}, {"B", "1"}}) {
            if (t.endsWith(suffix[0])) {
                mult = Long.parseLong(suffix[1]);
                digits = t.substring(0, t.length() - suffix[0].length()).trim();
                break;
            }
        }
        try {
            long v = Long.parseLong(digits);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(v, mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CommandError(what + ": '" + text + "' is not a size (e.g. 4096, 64K, 8M, 1G)");
        }
    }

    /**
     * Parses a non-negative count (plain integer, or with a binary suffix like a size).
     *
     * @param text the count
     * @param what name for the error message
     * @return the count
     */
    public static long parseCount(String text, String what) {
        try {
            return parseSize(text, what);
        } catch (IllegalArgumentException e) {
            throw new CommandError(what + ": '" + text + "' is not a non-negative integer");
        }
    }

    /**
     * Parses a link rate in bits per second: a number with an optional decimal suffix k, m, g
     * ({@code 100m} = 100 Mbit/s), as in tc and the fabric spec.
     *
     * @param text the rate
     * @param what name for the error message
     * @return bits per second, above zero
     */
    public static long parseRate(String text, String what) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("bit/s", "").replace("bps", "").replace("bit", "");
        long mult = 1;
        if (t.endsWith("k")) {
            mult = 1_000L;
        } else if (t.endsWith("m")) {
            mult = 1_000_000L;
        } else if (t.endsWith("g")) {
            mult = 1_000_000_000L;
        }
        String digits = mult == 1 ? t : t.substring(0, t.length() - 1);
        try {
            double v = Double.parseDouble(digits);
            if (!(v > 0) || Double.isInfinite(v)) {
                throw new NumberFormatException();
            }
            return Math.round(v * mult);
        } catch (NumberFormatException e) {
            throw new CommandError(what + ": '" + text + "' is not a rate (e.g. 100m, 1g, 500k)");
        }
    }

    /** @param bytes a size @return it in the largest binary unit that keeps it readable, e.g. {@code 64 MiB} */
    public static String bytes(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20) {
            return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    /** @param bitsPerSecond a rate @return it as {@code 123.4 Mbit/s} or {@code 1.23 Gbit/s} */
    public static String rate(double bitsPerSecond) {
        if (bitsPerSecond >= 1e9) {
            return String.format(Locale.ROOT, "%.2f Gbit/s", bitsPerSecond / 1e9);
        }
        return String.format(Locale.ROOT, "%.1f Mbit/s", bitsPerSecond / 1e6);
    }
}
