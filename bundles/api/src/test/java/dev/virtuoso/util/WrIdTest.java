package dev.virtuoso.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class WrIdTest {
    private static final long TAG = 5L << 60;

    @Test
    void packsTagGenerationAndSlot() {
        long id = WrId.pack(TAG, 7, 42);
        assertEquals(TAG | (7L << 32) | 42, id);
        assertEquals(TAG, WrId.tag(id));
        assertEquals(7, WrId.generation(id));
        assertEquals(42, WrId.slot(id));
    }

    @Test
    void fieldsDoNotSpillIntoEachOther() {
        long id = WrId.pack(TAG, -1, -1);
        assertEquals(TAG, WrId.tag(id), "a generation of all ones stays out of the tag");
        assertEquals(WrId.GENERATION_MASK, WrId.generation(id));
        assertEquals(0xFFFF_FFFFL, WrId.slot(id));
        assertEquals(0, WrId.generation(WrId.pack(TAG, 1 << WrId.GENERATION_BITS, 0)), "the generation wraps");
        assertEquals(0xFL << 60, WrId.tag(-1L));
    }

    @Test
    void onlyTopBitsAreATag() {
        assertEquals(TAG, WrId.checkTag(TAG));
        assertEquals(1L << 63, WrId.checkTag(1L << 63));
        assertThrows(IllegalArgumentException.class, () -> WrId.checkTag(0));
        assertThrows(IllegalArgumentException.class, () -> WrId.checkTag(TAG | 1));
        assertThrows(IllegalArgumentException.class, () -> WrId.checkTag(1L << 59));
    }
}
