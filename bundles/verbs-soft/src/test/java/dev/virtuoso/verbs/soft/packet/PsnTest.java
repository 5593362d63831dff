package dev.virtuoso.verbs.soft.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PsnTest {
    @Test
    void addAndNextWrapAt24Bits() {
        assertEquals(0, Psn.next(0xFFFFFF));
        assertEquals(0xFFFFFF, Psn.prev(0));
        assertEquals(5, Psn.add(0xFFFFFE, 7));
        assertEquals(0xFFFFFE, Psn.add(5, -7));
    }

    @Test
    void comparisonsUseTheShortWayRound() {
        assertEquals(1, Psn.diff(0, 0xFFFFFF));
        assertEquals(-1, Psn.diff(0xFFFFFF, 0));
        assertTrue(Psn.lt(0xFFFFF0, 0x000010));
        assertTrue(Psn.gt(0x000010, 0xFFFFF0));
        assertTrue(Psn.le(7, 7));
        assertTrue(Psn.ge(7, 7));
        assertFalse(Psn.lt(7, 7));
        assertEquals(Psn.HALF - 1, Psn.diff(Psn.HALF - 1, 0));
        assertEquals(-Psn.HALF, Psn.diff(Psn.HALF, 0), "exactly half way counts as behind");
        assertEquals(100, Psn.diff(Psn.add(0xFFFFC0, 100), 0xFFFFC0));
    }
}
