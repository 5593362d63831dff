package dev.virtuoso.commands.bench;

import java.util.Map;

/**
 * One row of the bench table.
 *
 * @param bytes message size
 * @param iterations messages
 * @param peak best bandwidth over any run of {@code max(tx-depth, iterations/20)} consecutive
 *     completions, in the report's unit
 * @param average bytes over the time from the first post to the last completion, in the report's unit
 * @param msgRateMpps messages per second, millions
 * @param seconds time from the first post to the last completion
 * @param cpu CPU time spent from the first post to the last completion
 * @param fctSeconds with {@code --fct}: each message's time from its post to its completion, in
 *     posting order; otherwise empty (owned by the row: do not modify)
 * @param postedSeconds with {@code --fct}: each message's post time after the first post (so its
 *     completion is at {@code postedSeconds[i] + fctSeconds[i]}); otherwise empty
 * @param startEpochMillis wall-clock time of the first post (lines up a run with outside events,
 *     e.g. a link's rate change), 0 if not recorded
 */
public record BenchResult(int bytes, int iterations, double peak, double average, double msgRateMpps, double seconds,
        CpuUsage cpu, double[] fctSeconds, double[] postedSeconds, long startEpochMillis) {

    private static final CpuUsage NO_CPU = new CpuUsage(-1, -1, Map.of());

    /**
     * Computes a row from completion times.
     *
     * @param o the options (unit, tx depth)
     * @param size message size
     * @param startNanos time of the first post
     * @param completionNanos time of each completion, in order
     * @return the row, without CPU times and per-message times
     */
    static BenchResult of(BenchOptions o, int size, long startNanos, long[] completionNanos) {
        return of(o, size, startNanos, completionNanos, NO_CPU, new double[0], new double[0], 0);
    }

    /**
     * Computes a row from completion times.
     *
     * @param o the options (unit, tx depth)
     * @param size message size
     * @param startNanos time of the first post
     * @param completionNanos time of each completion, in order
     * @param cpu CPU time over the same span
     * @param fctSeconds each message's post-to-completion time, or empty
     * @param postedSeconds each message's post time after the first post, or empty
     * @param startEpochMillis wall-clock time of the first post
     * @return the row
     */
    static BenchResult of(BenchOptions o, int size, long startNanos, long[] completionNanos, CpuUsage cpu,
            double[] fctSeconds, double[] postedSeconds, long startEpochMillis) {
        int n = completionNanos.length;
        double seconds = (completionNanos[n - 1] - startNanos) / 1e9;
        double average = o.bandwidth((double) size * n, seconds);
        int w = Math.min(n, Math.max(o.txDepth(), n / 20));
        double peak = average;
        for (int i = 0; i + w < n; i++) {
            long dt = completionNanos[i + w] - completionNanos[i];
            if (dt > 0) {
                peak = Math.max(peak, o.bandwidth((double) size * w, dt / 1e9));
            }
        }
        return new BenchResult(size, n, peak, average, seconds <= 0 ? 0 : n / seconds / 1e6, seconds, cpu, fctSeconds,
                postedSeconds, startEpochMillis);
    }
}
