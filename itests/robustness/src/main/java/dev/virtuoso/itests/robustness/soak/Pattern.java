package dev.virtuoso.itests.robustness.soak;

import java.nio.ByteBuffer;

/**
 * The data every soak transfer carries: a pseudo-random byte string determined by a seed, so a
 * receiver can check each byte without a copy of what was sent. Word {@code w} (bytes
 * {@code 8w..8w+7}, big-endian) is a mix of the seed and {@code w}; a short last word uses its
 * first bytes. Every operation gets its own seed, so stale bytes of an earlier one never pass.
 */
final class Pattern {
    private Pattern() {
    }

    /** SplitMix64 finaliser of {@code seed} and word index {@code w}. */
    static long word(long seed, long w) {
        long z = seed + (w + 1) * 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** Writes the pattern of {@code seed} into {@code b[offset, offset + length)} (absolute). */
    static void fill(ByteBuffer b, int offset, int length, long seed) {
        int w = 0;
        for (; 8 * w + 8 <= length; w++) {
            b.putLong(offset + 8 * w, word(seed, w));
        }
        long last = word(seed, w);
        for (int i = 8 * w; i < length; i++) {
            b.put(offset + i, (byte) (last >>> (56 - 8 * (i - 8 * w))));
        }
    }

    /** @return the index (from {@code offset}) of the first byte that differs from the pattern, or -1 */
    static int firstMismatch(ByteBuffer b, int offset, int length, long seed) {
        int w = 0;
        for (; 8 * w + 8 <= length; w++) {
            if (b.getLong(offset + 8 * w) != word(seed, w)) {
                return 8 * w + firstDifferingByte(b.getLong(offset + 8 * w), word(seed, w));
            }
        }
        long last = word(seed, w);
        for (int i = 8 * w; i < length; i++) {
            if (b.get(offset + i) != (byte) (last >>> (56 - 8 * (i - 8 * w)))) {
                return i;
            }
        }
        return -1;
    }

    /** @return the expected byte at index {@code i} of the pattern of {@code seed} */
    static byte expected(long seed, int i) {
        return (byte) (word(seed, i >>> 3) >>> (56 - 8 * (i & 7)));
    }

    private static int firstDifferingByte(long got, long want) {
        return Long.numberOfLeadingZeros(got ^ want) >>> 3;
    }
}
