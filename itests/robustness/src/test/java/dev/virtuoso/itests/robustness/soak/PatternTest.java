package dev.virtuoso.itests.robustness.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** The soak's data check finds any wrong byte, and stale data of another operation. */
class PatternTest {
    @Test
    void everyFlippedByteIsFoundAtItsIndex() {
        for (int len : new int[] {0, 1, 7, 8, 9, 63, 64, 1000}) {
            ByteBuffer b = ByteBuffer.allocateDirect(len + 16);
            Pattern.fill(b, 5, len, 99);
            assertEquals(-1, Pattern.firstMismatch(b, 5, len, 99), "len " + len);
            for (int i = 0; i < len; i++) {
                assertEquals(Pattern.expected(99, i), b.get(5 + i));
                b.put(5 + i, (byte) (b.get(5 + i) ^ 0x10));
                assertEquals(i, Pattern.firstMismatch(b, 5, len, 99), "len " + len);
                b.put(5 + i, (byte) (b.get(5 + i) ^ 0x10));
            }
        }
    }

    @Test
    void anotherOperationsDataDoesNotPass() {
        ByteBuffer b = ByteBuffer.allocateDirect(4096);
        Pattern.fill(b, 0, 4096, 1);
        assertEquals(0, Pattern.firstMismatch(b, 0, 4096, 2));
    }
}
