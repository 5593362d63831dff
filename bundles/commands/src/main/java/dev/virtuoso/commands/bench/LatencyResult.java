package dev.virtuoso.commands.bench;

import java.util.Arrays;

/**
 * One size of the latency test, as perftest's {@code ib_send_lat} reports it: half of each round
 * trip, in microseconds.
 *
 * @param bytes message size
 * @param iterations round trips measured
 * @param min fastest
 * @param max slowest
 * @param typical the median (perftest's t_typical)
 * @param average mean
 * @param stdev standard deviation
 * @param p99 99th percentile
 * @param p999 99.9th percentile
 */
public record LatencyResult(int bytes, int iterations, double min, double max, double typical, double average,
        double stdev, double p99, double p999) {

    /**
     * @param bytes message size
     * @param halfRoundTripNanos half of each round trip (sorted in place)
     * @return the summary
     * @throws IllegalArgumentException if there is no sample
     */
    public static LatencyResult of(int bytes, long[] halfRoundTripNanos) {
        int n = halfRoundTripNanos.length;
        if (n == 0) {
            throw new IllegalArgumentException("no round trip measured");
        }
        long[] s = halfRoundTripNanos;
        Arrays.sort(s);
        double sum = 0;
        for (long v : s) {
            sum += v;
        }
        double mean = sum / n;
        double squares = 0;
        for (long v : s) {
            squares += (v - mean) * (v - mean);
        }
        return new LatencyResult(bytes, n, us(s[0]), us(s[n - 1]), us(percentile(s, 0.5)), mean / 1e3,
                Math.sqrt(squares / n) / 1e3, us(percentile(s, 0.99)), us(percentile(s, 0.999)));
    }

    /** Nearest rank: the smallest sample with at least {@code q} of the samples at or below it. */
    static long percentile(long[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double us(long nanos) {
        return nanos / 1e3;
    }
}
