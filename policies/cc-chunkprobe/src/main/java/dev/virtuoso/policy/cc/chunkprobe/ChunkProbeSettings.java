package dev.virtuoso.policy.cc.chunkprobe;

import dev.virtuoso.spi.policy.PolicyContext;

/** Validated settings of one session. */
record ChunkProbeSettings(long initialChunkBytes, long minChunkBytes, long maxChunkBytes, long linearStepBytes,
        int window, long reprobeAfterChunks) {

    private static final String P = ChunkProbePolicy.NAME + ".";

    ChunkProbeSettings {
        atLeast("minChunkBytes", minChunkBytes, 1);
        atLeast("initialChunkBytes", initialChunkBytes, minChunkBytes);
        atLeast("maxChunkBytes", maxChunkBytes, initialChunkBytes);
        atLeast("linearStepBytes", linearStepBytes, 1);
        atLeast("window", window, 1);
        atLeast("reprobeAfterChunks", reprobeAfterChunks, 0);
    }

    static ChunkProbeSettings of(ChunkProbeConfig c) {
        return new ChunkProbeSettings(c.initialChunkBytes(), c.minChunkBytes(), c.maxChunkBytes(),
                c.linearStepBytes(), c.window(), c.reprobeAfterChunks());
    }

    /** @return these defaults with the connection's {@code cc-chunkprobe.<name>} properties applied */
    ChunkProbeSettings with(PolicyContext ctx) {
        long window = ctx.longProperty(P + "window", this.window);
        if (window > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(P + "window too large: " + window);
        }
        return new ChunkProbeSettings(ctx.longProperty(P + "initialChunkBytes", initialChunkBytes),
                ctx.longProperty(P + "minChunkBytes", minChunkBytes),
                ctx.longProperty(P + "maxChunkBytes", maxChunkBytes),
                ctx.longProperty(P + "linearStepBytes", linearStepBytes), (int) window,
                ctx.longProperty(P + "reprobeAfterChunks", reprobeAfterChunks));
    }

    private static void atLeast(String name, long v, long min) {
        if (v < min) {
            throw new IllegalArgumentException(P + name + " must be >= " + min + ": " + v);
        }
    }
}
