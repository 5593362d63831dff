package dev.virtuoso.commands.demo;

/**
 * Throughput over one sampling interval.
 *
 * @param seconds end of the interval, seconds since the demo started
 * @param phase the phase running
 * @param pathBitsPerSecond per physical path, bits/s carried (see {@link PathRates}); all zero if the
 *     connection does not count per path
 * @param totalBitsPerSecond verified goodput of the phase, bits/s
 * @param pathBytes per physical path, bytes the phase moved over it so far
 */
public record Sample(double seconds, String phase, double[] pathBitsPerSecond, double totalBitsPerSecond,
        long[] pathBytes) {
}
