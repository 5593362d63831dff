package dev.virtuoso.decomposer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DecompositionConfigTest {
    /** A wr_id tag, as the engine assigns one. */
    private static final long TAG = 1L << 60;


    private static DecompositionConfig config(int maxMessages, int maxChunks, long split, long chunkBytes,
            int chunksPerPath, long failover) {
        return new DecompositionConfig("c", maxMessages, maxChunks, split, chunkBytes, chunksPerPath, failover, TAG);
    }

    @Test
    void smallestValidValuesAreAccepted() {
        DecompositionConfig c = config(1, 1, 0, 1, 1, 1);
        assertEquals(1, c.maxMessages());
        assertEquals(1, c.maxChunks());
        assertEquals(0, c.splitThreshold());
        assertEquals(1, c.builtinChunkBytes());
        assertEquals(1, c.builtinChunksPerPath());
        assertEquals(1, c.failoverTimeoutNanos());
    }

    @Test
    void eachLimitBelowItsMinimumIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> config(0, 1, 0, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> config(1, 0, 0, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> config(1, 1, -1, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> config(1, 1, 0, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> config(1, 1, 0, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> config(1, 1, 0, 1, 1, 0));
    }

    @Test
    void connectionIdIsRequired() {
        assertThrows(IllegalArgumentException.class,
                () -> new DecompositionConfig(null, 1, 1, 0, 1, 1, 1, TAG));
    }
}
