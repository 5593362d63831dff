package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;

/** The probe scratch region a peer advertises is untrusted input: length and bounds are checked. */
class ScratchRegionTest {

    private static ByteBuffer encoded(long address, int rkey, int length) {
        ByteBuffer b = ByteBuffer.allocate(16).putLong(address).putInt(rkey).putInt(length);
        return b.flip();
    }

    @Test
    void roundTripsInsideTheReceiveParameters() throws Exception {
        ReceiveParams p = new ReceiveParams(64, 8, 1024, 1024, new ScratchRegion(0x10_0000L, 77, 128 * 1024));
        ByteBuffer b = ByteBuffer.allocate(64);
        p.encode(b);
        b.flip();
        assertEquals(p, ReceiveParams.decode(b));
        assertEquals(0, b.remaining());
    }

    @Test
    void emptyRegionMeansNoProbing() throws Exception {
        assertSame(ScratchRegion.NONE, ScratchRegion.decode(encoded(0, 0, 0)));
        assertEquals(ScratchRegion.NONE, new ReceiveParams(1, 1, 64, 256).scratch());
    }

    @Test
    void rejectsHostileRegions() {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> ScratchRegion.decode(encoded(0x1000, 1, HandshakeMessages.MAX_SCRATCH_BYTES + 1)));
        assertTrue(e.getMessage().contains("scratch length"), e.getMessage());
        assertThrows(ProtocolException.class, () -> ScratchRegion.decode(encoded(0x1000, 1, -5)));
        assertThrows(ProtocolException.class, () -> ScratchRegion.decode(encoded(-16, 1, 4096)),
                "wraps the address space");
        assertThrows(ProtocolException.class, () -> ScratchRegion.decode(encoded(0x1000, 0, 0)),
                "empty region with an address");
        assertThrows(ProtocolException.class, () -> ScratchRegion.decode(encoded(0, 9, 0)), "empty region with a key");
        assertThrows(ProtocolException.class, () -> ScratchRegion.decode(ByteBuffer.allocate(15)), "truncated");
    }

    @Test
    void acceptsARegionEndingAtTheTopOfTheAddressSpace() throws Exception {
        ScratchRegion r = ScratchRegion.decode(encoded(-1L - 4096, 5, 4096));
        assertEquals(4096, r.length());
    }
}
