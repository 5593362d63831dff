package dev.virtuoso.verbs.soft.packet;

/**
 * 24-bit packet sequence number arithmetic. PSNs wrap at 2^24, so every comparison is done on the
 * signed distance modulo 2^24: a PSN is "after" another if it is less than 2^23 ahead of it.
 */
public final class Psn {
    /** All 24 PSN bits. */
    public static final int MASK = 0xFFFFFF;
    /** Half the PSN space: distances at or beyond it are ambiguous. */
    public static final int HALF = 1 << 23;

    private Psn() {
    }

    /**
     * @param psn a PSN
     * @param n distance, may be negative
     * @return {@code psn + n} modulo 2^24
     */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** @param psn a PSN @return the PSN after it */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /** @param psn a PSN @return the PSN before it */
    public static int prev(int psn) {
        return (psn - 1) & MASK;
    }

    /**
     * Signed distance from {@code b} to {@code a}, in {@code [-2^23, 2^23)}.
     *
     * @param a a PSN
     * @param b a PSN
     * @return {@code a - b} interpreted as a signed 24-bit number
     */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** @return true if {@code a} comes before {@code b} */
    public static boolean lt(int a, int b) {
        return diff(a, b) < 0;
    }

    /** @return true if {@code a} comes before {@code b} or equals it */
    public static boolean le(int a, int b) {
        return diff(a, b) <= 0;
    }

    /** @return true if {@code a} comes after {@code b} */
    public static boolean gt(int a, int b) {
        return diff(a, b) > 0;
    }

    /** @return true if {@code a} comes after {@code b} or equals it */
    public static boolean ge(int a, int b) {
        return diff(a, b) >= 0;
    }
}
