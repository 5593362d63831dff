package dev.virtuoso.policy.lb.adaptive;

import dev.virtuoso.spi.policy.PolicyContext;
import dev.virtuoso.util.TypedProperties;

/** Validated settings of one session; durations in nanoseconds. */
record AdaptiveSettings(long chunkTimeNanos, long minChunkBytes, int minInFlightChunks, long queueTargetNanos,
        long rateTimeConstantNanos, int exploreEvery, long exploreIdleNanos, boolean tailAware) {

    private static final String P = AdaptivePolicy.NAME + ".";
    private static final long MS = 1_000_000L;

    AdaptiveSettings {
        atLeast("chunkTimeMillis", chunkTimeNanos, 1);
        atLeast("minChunkBytes", minChunkBytes, 1);
        atLeast("minInFlightChunks", minInFlightChunks, 1);
        atLeast("queueTargetMillis", queueTargetNanos, 0);
        atLeast("rateTimeConstantMillis", rateTimeConstantNanos, 1);
        atLeast("exploreEvery", exploreEvery, 0);
        atLeast("exploreIdleMillis", exploreIdleNanos, 1);
    }

    static AdaptiveSettings of(AdaptiveConfig c) {
        return new AdaptiveSettings(c.chunkTimeMillis() * MS, c.minChunkBytes(), c.minInFlightChunks(),
                c.queueTargetMillis() * MS, c.rateTimeConstantMillis() * MS, c.exploreEvery(),
                c.exploreIdleMillis() * MS, c.tailAware());
    }

    /** @return these defaults with the connection's {@code lb-adaptive.<name>} properties applied */
    AdaptiveSettings with(PolicyContext ctx) {
        TypedProperties p = TypedProperties.of(ctx.properties()).prefixed(P);
        return new AdaptiveSettings(
                p.getLong("chunkTimeMillis", chunkTimeNanos / MS) * MS,
                p.getLong("minChunkBytes", minChunkBytes),
                p.getInt("minInFlightChunks", minInFlightChunks),
                p.getLong("queueTargetMillis", queueTargetNanos / MS) * MS,
                p.getLong("rateTimeConstantMillis", rateTimeConstantNanos / MS) * MS,
                p.getInt("exploreEvery", exploreEvery),
                p.getLong("exploreIdleMillis", exploreIdleNanos / MS) * MS,
                p.getBoolean("tailAware", tailAware));
    }

    private static void atLeast(String name, long v, long min) {
        if (v < min) {
            throw new IllegalArgumentException(P + name + " must be >= " + min + ": " + v);
        }
    }
}
