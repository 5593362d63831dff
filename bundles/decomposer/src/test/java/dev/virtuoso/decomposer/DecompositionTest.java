package dev.virtuoso.decomposer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DecompositionTest {

    @Test
    void ownsOnlyWrIdsWithTheChunkTag() {
        assertTrue(Decomposition.ownsWrId(Decomposition.WR_ID_TAG));
        assertTrue(Decomposition.ownsWrId(Decomposition.WR_ID_TAG | (5L << 32) | 17));
        assertFalse(Decomposition.ownsWrId(0));
        assertFalse(Decomposition.ownsWrId(17));
        assertFalse(Decomposition.ownsWrId(2L << 60), "another tag");
        assertFalse(Decomposition.ownsWrId(Decomposition.WR_ID_TAG | (1L << 63)), "extra tag bits");
    }
}
