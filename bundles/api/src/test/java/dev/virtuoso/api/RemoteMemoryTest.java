package dev.virtuoso.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class RemoteMemoryTest {

    @Test
    void encodesInSixteenBigEndianBytes() {
        RemoteMemory m = new RemoteMemory(0x0102030405060708L, 0x0A0B0C0D, 0x10);
        ByteBuffer b = ByteBuffer.allocate(RemoteMemory.ENCODED_BYTES);
        m.writeTo(b);
        assertEquals(RemoteMemory.ENCODED_BYTES, b.position());
        assertEquals(0x01, b.get(0));
        assertEquals(0x0A, b.get(8));
        b.flip();
        assertEquals(m, RemoteMemory.readFrom(b));
    }

    @Test
    void rejectsNegativeLengthFromTheWire() {
        ByteBuffer b = ByteBuffer.allocate(16).putLong(1).putInt(2).putInt(-1).flip();
        assertThrows(IllegalArgumentException.class, () -> RemoteMemory.readFrom(b));
    }
}
