package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The idle engine's spin and yield shrink while gaps outlast them and come back after a short one. */
class IdleShiftTest {
    private static final long SPIN = 20_000;
    private static final long YIELD = 200_000;

    @Test
    void gapsLongerThanSpinAndYieldHalveThemDownToTheFloor() {
        int shift = 0;
        for (int i = 1; i <= Engine.MAX_IDLE_SHIFT; i++) {
            shift = Engine.idleShift(shift, 330_000, SPIN, YIELD);
            assertEquals(i, shift);
        }
        assertEquals(Engine.MAX_IDLE_SHIFT, Engine.idleShift(shift, 330_000, SPIN, YIELD), "no shorter than the floor");
    }

    @Test
    void aGapTheFullPhasesWouldHaveBridgedRestoresThem() {
        assertEquals(0, Engine.idleShift(Engine.MAX_IDLE_SHIFT, SPIN + YIELD, SPIN, YIELD));
        assertEquals(0, Engine.idleShift(5, 25_000, SPIN, YIELD));
        assertEquals(1, Engine.idleShift(0, SPIN + YIELD + 1, SPIN, YIELD));
        assertEquals(0, Engine.idleShift(3, 15_000, SPIN, 0), "without a yielding phase the spin alone counts");
        assertEquals(4, Engine.idleShift(3, 25_000, SPIN, 0));
    }
}
