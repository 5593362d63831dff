package dev.virtuoso.policy.cc.chunkprobe;

import dev.virtuoso.spi.policy.PolicyContext;

/** Validated settings of one session (see {@link ChunkProbeConfig} for each). */
record ChunkProbeSettings(long initialChunkBytes, long minChunkBytes, long maxChunkBytes, long linearStepBytes,
        int window, long reprobeAfterChunks, int levelChunks, long levelBytes, int slowdownPercent,
        int windowAfterLoss, int gainPercent, int collapsePercent, int reprobeJitterPercent) {

    private static final String P = ChunkProbePolicy.NAME + ".";
    /** The defaults of {@link ChunkProbeConfig}. */
    static final ChunkProbeSettings DEFAULTS = new ChunkProbeSettings(16384, 4096, 64L << 20, 65536, 2, 1024, 16,
            1L << 20, 5, 1, 5, 25, 50);

    ChunkProbeSettings {
        atLeast("minChunkBytes", minChunkBytes, 1);
        atLeast("initialChunkBytes", initialChunkBytes, minChunkBytes);
        atLeast("maxChunkBytes", maxChunkBytes, initialChunkBytes);
        atLeast("linearStepBytes", linearStepBytes, 1);
        atLeast("window", window, 1);
        atLeast("windowAfterLoss", windowAfterLoss, 1);
        atLeast("reprobeAfterChunks", reprobeAfterChunks, 0);
        atLeast("levelChunks", levelChunks, 1);
        atLeast("levelBytes", levelBytes, 1);
        percent("slowdownPercent", slowdownPercent);
        atLeast("gainPercent", gainPercent, 0);
        percent("collapsePercent", collapsePercent);
        percent("reprobeJitterPercent", reprobeJitterPercent);
    }

    static ChunkProbeSettings of(ChunkProbeConfig c) {
        return new ChunkProbeSettings(c.initialChunkBytes(), c.minChunkBytes(), c.maxChunkBytes(),
                c.linearStepBytes(), c.window(), c.reprobeAfterChunks(), c.levelChunks(), c.levelBytes(),
                c.slowdownPercent(), c.windowAfterLoss(), c.gainPercent(), c.collapsePercent(),
                c.reprobeJitterPercent());
    }

    /** @return these defaults with the connection's {@code cc-chunkprobe.<name>} properties applied */
    ChunkProbeSettings with(PolicyContext ctx) {
        return new ChunkProbeSettings(ctx.longProperty(P + "initialChunkBytes", initialChunkBytes),
                ctx.longProperty(P + "minChunkBytes", minChunkBytes),
                ctx.longProperty(P + "maxChunkBytes", maxChunkBytes),
                ctx.longProperty(P + "linearStepBytes", linearStepBytes), intOf(ctx, "window", window),
                ctx.longProperty(P + "reprobeAfterChunks", reprobeAfterChunks),
                intOf(ctx, "levelChunks", levelChunks), ctx.longProperty(P + "levelBytes", levelBytes),
                intOf(ctx, "slowdownPercent", slowdownPercent), intOf(ctx, "windowAfterLoss", windowAfterLoss),
                intOf(ctx, "gainPercent", gainPercent), intOf(ctx, "collapsePercent", collapsePercent),
                intOf(ctx, "reprobeJitterPercent", reprobeJitterPercent));
    }

    private static int intOf(PolicyContext ctx, String name, int dflt) {
        long v = ctx.longProperty(P + name, dflt);
        if (v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(P + name + " too large: " + v);
        }
        return (int) v;
    }

    private static void atLeast(String name, long v, long min) {
        if (v < min) {
            throw new IllegalArgumentException(P + name + " must be >= " + min + ": " + v);
        }
    }

    private static void percent(String name, int v) {
        atLeast(name, v, 0);
        if (v > 100) {
            throw new IllegalArgumentException(P + name + " must be <= 100: " + v);
        }
    }
}
