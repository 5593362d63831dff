package dev.virtuoso.policy.lb.adaptive;

import dev.virtuoso.spi.policy.PolicyContext;

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
        return new AdaptiveSettings(
                ctx.longProperty(P + "chunkTimeMillis", chunkTimeNanos / MS) * MS,
                ctx.longProperty(P + "minChunkBytes", minChunkBytes),
                (int) ctx.longProperty(P + "minInFlightChunks", minInFlightChunks),
                ctx.longProperty(P + "queueTargetMillis", queueTargetNanos / MS) * MS,
                ctx.longProperty(P + "rateTimeConstantMillis", rateTimeConstantNanos / MS) * MS,
                (int) ctx.longProperty(P + "exploreEvery", exploreEvery),
                ctx.longProperty(P + "exploreIdleMillis", exploreIdleNanos / MS) * MS,
                bool(ctx.properties().get(P + "tailAware"), tailAware));
    }

    private static boolean bool(Object v, boolean dflt) {
        if (v == null) {
            return dflt;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        String s = v.toString().trim();
        if (s.equalsIgnoreCase("true")) {
            return true;
        }
        if (s.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(P + "tailAware is not a boolean: " + v);
    }

    private static void atLeast(String name, long v, long min) {
        if (v < min) {
            throw new IllegalArgumentException(P + name + " must be >= " + min + ": " + v);
        }
    }
}
