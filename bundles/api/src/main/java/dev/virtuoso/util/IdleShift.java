package dev.virtuoso.util;

/**
 * How far a thread's spin before it blocks is shrunk, adapted to the waits it sees (Aeron's backoff
 * made adaptive): a wait the whole spin would have bridged restores it in full; a longer one halves
 * it, down to {@code 1/2^}{@link #MAX}. So a thread whose work comes at longer intervals than it
 * spins (a 4 KiB packet every 330 us on a 100 Mbit/s link, completions that come seldom) stops
 * spinning before each, and one short wait (request-response traffic) brings the spin back. Used
 * by the soft RNIC's idle engine (spin and yield) and by {@code awaitCompletion}.
 */
public final class IdleShift {
    /** The spin shrinks to no less than {@code 1/2^MAX} of its configured length. */
    public static final int MAX = 10;

    private IdleShift() {
    }

    /**
     * @param shift the shrink the wait started with (the spin was {@code spinNanos >> shift})
     * @param waitedNanos how long the wait took until its work came
     * @param spinNanos the whole spin (and yield) before blocking
     * @return the shrink for the next wait
     */
    public static int next(int shift, long waitedNanos, long spinNanos) {
        return waitedNanos <= spinNanos ? 0 : Math.min(MAX, shift + 1);
    }
}
