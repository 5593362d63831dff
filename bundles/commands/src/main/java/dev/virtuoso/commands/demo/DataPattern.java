package dev.virtuoso.commands.demo;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Fills buffers with a pseudo-random pattern that depends on a seed (one per work request), so
 * every transferred byte can be checked and a stale or misplaced block is caught. Stateless.
 */
public final class DataPattern {

    private DataPattern() {
    }

    /**
     * Fills {@code buf[offset, offset+length)} with the pattern of {@code seed} (absolute
     * positions; the buffer's position and limit are untouched).
     *
     * @param buf a buffer
     * @param offset first byte
     * @param length bytes to fill
     * @param seed pattern seed
     */
    public static void fill(ByteBuffer buf, int offset, int length, long seed) {
        ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long x = mix(seed);
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.putLong(offset + i, x);
        }
        for (; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.put(offset + i, (byte) x);
        }
    }

    /**
     * Compares two ranges.
     *
     * @param a first buffer
     * @param aOffset start in {@code a}
     * @param b second buffer
     * @param bOffset start in {@code b}
     * @param length bytes to compare
     * @return the offset of the first differing byte relative to the starts, or -1 if equal
     */
    public static int mismatch(ByteBuffer a, int aOffset, ByteBuffer b, int bOffset, int length) {
        return a.slice(aOffset, length).mismatch(b.slice(bOffset, length));
    }

    private static long mix(long seed) {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return z == 0 ? 0x2545F4914F6CDD1DL : z;
    }
}
