package dev.virtuoso.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A spin shrinks while waits outlast it and comes back after a short one: the soft RNIC's idle
 * phases (20 us spin + 200 us yield) and {@code awaitCompletion}'s 50 us spin.
 */
class IdleShiftTest {
    private static final long SPIN = 20_000;
    private static final long YIELD = 200_000;
    private static final long AWAIT_SPIN = 50_000;

    @Test
    void gapsLongerThanSpinAndYieldHalveThemDownToTheFloor() {
        int shift = 0;
        for (int i = 1; i <= IdleShift.MAX; i++) {
            shift = IdleShift.next(shift, 330_000, SPIN + YIELD);
            assertEquals(i, shift);
        }
        assertEquals(IdleShift.MAX, IdleShift.next(shift, 330_000, SPIN + YIELD), "no shorter than the floor");
    }

    @Test
    void aGapTheFullPhasesWouldHaveBridgedRestoresThem() {
        assertEquals(0, IdleShift.next(IdleShift.MAX, SPIN + YIELD, SPIN + YIELD));
        assertEquals(0, IdleShift.next(5, 25_000, SPIN + YIELD));
        assertEquals(1, IdleShift.next(0, SPIN + YIELD + 1, SPIN + YIELD));
        assertEquals(0, IdleShift.next(3, 15_000, SPIN), "without a yielding phase the spin alone counts");
        assertEquals(4, IdleShift.next(3, 25_000, SPIN));
    }

    @Test
    void theAwaitSpinComesBackAfterAShortWaitAndHalvesAfterALongOne() {
        assertEquals(0, IdleShift.next(5, 0, AWAIT_SPIN));
        assertEquals(0, IdleShift.next(5, AWAIT_SPIN, AWAIT_SPIN));
        assertEquals(6, IdleShift.next(5, AWAIT_SPIN + 1, AWAIT_SPIN));
        assertEquals(1, IdleShift.next(0, 1_000_000_000L, AWAIT_SPIN));
        assertEquals(IdleShift.MAX, IdleShift.next(IdleShift.MAX, 1_000_000_000L, AWAIT_SPIN));
        assertEquals(10, IdleShift.MAX, "the spin shrinks to 1/1024: about 50 ns of a 50 us one");
    }
}
