package dev.virtuoso.pathmonitor.internal;

import dev.virtuoso.spi.policy.PathStateView;

/**
 * Passive delivery-rate estimate of one path from its completions, without per-chunk state.
 *
 * <p>A completion of {@code bytes} with latency {@code L} at time {@code now} accounts for the busy
 * time {@code now - max(previousCompletion, now - L)}: the spacing to the previous completion while
 * the path was busy, or the chunk's own latency when it was posted onto an idle path. Completions
 * are aggregated until they span at least {@code minSampleNanos} (batched CQ polling otherwise
 * yields zero spacings), then folded into a time-weighted moving average with time constant
 * {@code tau}: weight {@code 1 - exp(-span / tau)}, so the estimate follows a rate change within a
 * few {@code tau} whatever the chunk size.
 *
 * <p>Completions of at most {@link PathStateView#MAX_LATENCY_ONLY_BYTES} bytes (one RoCE packet at the
 * largest MTU: the reassembly's control messages, notices, small messages) are left out altogether: a
 * single packet's completion time is the path's latency, not its rate, and such a sample would
 * read a 100 Mbit/s path at a few kbit/s. When it was the path's first sample, the load balancers
 * that weigh paths by this estimate gave the path no data from then on, so nothing ever corrected
 * it (seen with lb-proportional on a connection whose capacities came from another connection).
 */
final class DeliveryRateEstimator {
    private final long minSampleNanos;
    private final double tauNanos;

    private boolean anyCompletion;
    private long lastCompletionNanos;
    private long sampleBytes;
    private long sampleNanos;
    private double rate;

    DeliveryRateEstimator(long minSampleNanos, long tauNanos) {
        this.minSampleNanos = minSampleNanos;
        this.tauNanos = tauNanos;
    }

    /**
     * Accounts for one successful completion.
     *
     * @param bytes bytes delivered
     * @param latencyNanos post-to-completion time
     * @param nowNanos completion time
     */
    void onDelivered(long bytes, long latencyNanos, long nowNanos) {
        if (bytes <= PathStateView.MAX_LATENCY_ONLY_BYTES) {
            return; // latency only: neither a sample nor the end of a busy interval of data
        }
        long postedAt = nowNanos - Math.max(0, latencyNanos);
        long busyFrom = anyCompletion ? Math.max(lastCompletionNanos, postedAt) : postedAt;
        long span = Math.max(0, nowNanos - busyFrom);
        anyCompletion = true;
        lastCompletionNanos = nowNanos;
        sampleBytes += bytes;
        sampleNanos += span;
        if (sampleNanos >= minSampleNanos) {
            double sample = sampleBytes * 1e9 / sampleNanos;
            if (rate == 0) {
                rate = sample;
            } else {
                double w = 1 - Math.exp(-sampleNanos / tauNanos);
                rate += w * (sample - rate);
            }
            sampleBytes = 0;
            sampleNanos = 0;
        }
    }

    /**
     * A failed chunk still ends a busy interval: later spacings must not include it.
     *
     * @param nowNanos completion time
     */
    void onFailed(long nowNanos) {
        if (anyCompletion) {
            lastCompletionNanos = nowNanos;
        }
    }

    /** @return bytes per second, 0 if unknown */
    double rate() {
        return rate;
    }
}
