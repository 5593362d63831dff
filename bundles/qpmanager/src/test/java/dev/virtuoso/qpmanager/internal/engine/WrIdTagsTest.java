package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.util.WrId;

/** The engine's wr_id tags (formerly Decomposition/Reassembly.ownsWrId in the exported API). */
class WrIdTagsTest {

    @Test
    void ownsOnlyWrIdsWithTheChunkTag() {
        assertTrue(WrIdTags.owns(WrIdTags.CHUNK, WrIdTags.CHUNK));
        assertTrue(WrIdTags.owns(WrIdTags.CHUNK, WrIdTags.CHUNK | (5L << 32) | 17));
        assertFalse(WrIdTags.owns(WrIdTags.CHUNK, 0));
        assertFalse(WrIdTags.owns(WrIdTags.CHUNK, 17));
        assertFalse(WrIdTags.owns(WrIdTags.CHUNK, 2L << 60), "another tag");
        assertFalse(WrIdTags.owns(WrIdTags.CHUNK, WrIdTags.CHUNK | (1L << 63)), "extra tag bits");
    }

    @Test
    void ownsOnlyWrIdsWithTheSlotTag() {
        assertTrue(WrIdTags.owns(WrIdTags.SLOT, WrIdTags.SLOT | 5));
        assertFalse(WrIdTags.owns(WrIdTags.SLOT, 5));
        assertFalse(WrIdTags.owns(WrIdTags.SLOT, WrIdTags.SLOT | (1L << 63)));
        assertFalse(WrIdTags.owns(WrIdTags.SLOT, 1L << 60), "the decomposer's chunk tag");
    }

    @Test
    void theTagsAreDistinctValidTags() {
        long[] tags = {WrIdTags.CHUNK, WrIdTags.SLOT, WrIdTags.PROBE};
        for (int i = 0; i < tags.length; i++) {
            assertEquals(tags[i], WrId.checkTag(tags[i]));
            for (int j = 0; j < tags.length; j++) {
                assertEquals(i == j, WrIdTags.owns(tags[i], WrId.pack(tags[j], 3, 9)));
            }
        }
    }
}
