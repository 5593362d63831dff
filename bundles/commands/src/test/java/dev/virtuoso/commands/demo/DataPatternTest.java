package dev.virtuoso.commands.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class DataPatternTest {

    @Test
    void sameSeedSameBytesOtherSeedOtherBytes() {
        ByteBuffer a = ByteBuffer.allocateDirect(1000);
        ByteBuffer b = ByteBuffer.allocateDirect(1000);
        DataPattern.fill(a, 3, 997, 42);
        DataPattern.fill(b, 3, 997, 42);
        assertEquals(-1, DataPattern.mismatch(a, 3, b, 3, 997));
        DataPattern.fill(b, 3, 997, 43);
        assertNotEquals(-1, DataPattern.mismatch(a, 3, b, 3, 997));
    }

    @Test
    void findsASingleFlippedByteAnywhere() {
        ByteBuffer a = ByteBuffer.allocateDirect(4096);
        ByteBuffer b = ByteBuffer.allocateDirect(4096);
        DataPattern.fill(a, 0, 4096, 7);
        for (int at : new int[] {0, 1, 2047, 4095}) {
            DataPattern.fill(b, 0, 4096, 7);
            b.put(at, (byte) (b.get(at) ^ 1));
            assertEquals(at, DataPattern.mismatch(a, 0, b, 0, 4096));
        }
    }

    @Test
    void leavesBytesOutsideTheRangeAlone() {
        ByteBuffer a = ByteBuffer.allocateDirect(64);
        DataPattern.fill(a, 8, 40, 1);
        for (int i = 0; i < 8; i++) {
            assertEquals(0, a.get(i));
        }
        for (int i = 48; i < 64; i++) {
            assertEquals(0, a.get(i));
        }
        assertEquals(0, a.position());
        assertEquals(64, a.limit());
    }
}
