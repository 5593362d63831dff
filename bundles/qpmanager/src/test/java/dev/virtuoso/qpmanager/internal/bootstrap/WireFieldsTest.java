package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;

/** Frame headers, message fields and peer limits at their edges: what a hostile peer can send. */
class WireFieldsTest {

    private static ByteBuffer header(int magic, int version, int type, int flags, int length) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.position(4); // the header need not start at 0
        b.putInt(magic).put((byte) version).put((byte) type).putShort((short) flags).putInt(length);
        return b;
    }

    @Test
    void aWrittenHeaderChecksAndNamesItsType() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.position(4);
        FrameHeader.write(b, Protocol.ACCEPT, 100);
        assertEquals(16, b.position());
        assertEquals(100, FrameHeader.check(b, 4, 100), "a body of exactly the limit is allowed");
        assertEquals(Protocol.ACCEPT, FrameHeader.type(b, 4));
        assertEquals(0, FrameHeader.check(header(Protocol.MAGIC, Protocol.VERSION, 4, 0, 0), 4, 10));
    }

    @Test
    void badHeadersAreRefused() {
        assertFalse(assertThrows(ProtocolException.class,
                () -> FrameHeader.check(header(0x12345678, Protocol.VERSION, 1, 0, 0), 4, 10)).versionMismatch());
        ProtocolException v = assertThrows(ProtocolException.class,
                () -> FrameHeader.check(header(Protocol.MAGIC, 3, 1, 0, 0), 4, 10));
        assertTrue(v.versionMismatch(), "a version mismatch is reported as such");
        assertThrows(ProtocolException.class, () -> FrameHeader.check(header(Protocol.MAGIC, Protocol.VERSION, 1, 1, 0), 4, 10));
        assertThrows(ProtocolException.class, () -> FrameHeader.check(header(Protocol.MAGIC, Protocol.VERSION, 1, 0, 11), 4, 10));
        assertThrows(ProtocolException.class, () -> FrameHeader.check(header(Protocol.MAGIC, Protocol.VERSION, 1, 0, -1), 4, 10));
        assertEquals(255, FrameHeader.type(header(Protocol.MAGIC, Protocol.VERSION, 255, 0, 0), 4), "type is unsigned");
    }

    @Test
    void fieldsNeedTheirBytes() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(3).put(0, (byte) 0xFF).put(1, (byte) 0xFE).put(2, (byte) 0xFD);
        Fields.need(b, 3);
        assertThrows(ProtocolException.class, () -> Fields.need(b, 4));
        assertThrows(ProtocolException.class, () -> Fields.i32(b));
        assertEquals(0xFF, Fields.u8(b));
        assertEquals(0xFEFD, Fields.u16(b));
        assertThrows(ProtocolException.class, () -> Fields.u8(b));
        assertThrows(ProtocolException.class, () -> Fields.u16(ByteBuffer.allocate(1)));
        assertThrows(ProtocolException.class, () -> Fields.bytes(ByteBuffer.allocate(1), 2));
        Fields.end(b, "x");
        assertThrows(ProtocolException.class, () -> Fields.end(ByteBuffer.allocate(1), "x"));
    }

    @Test
    void u24AndRangeCheckTheirBounds() throws Exception {
        assertEquals(0xFF_FFFF, Fields.u24(ByteBuffer.allocate(4).putInt(0, 0xFF_FFFF), "psn"));
        assertThrows(ProtocolException.class, () -> Fields.u24(ByteBuffer.allocate(4).putInt(0, 0x100_0000), "psn"));
        assertThrows(ProtocolException.class, () -> Fields.u24(ByteBuffer.allocate(4).putInt(0, -1), "psn"));
        assertEquals(5, Fields.range(ByteBuffer.allocate(4).putInt(0, 5), "n", 5, 9));
        assertEquals(9, Fields.range(ByteBuffer.allocate(4).putInt(0, 9), "n", 5, 9));
        assertThrows(ProtocolException.class, () -> Fields.range(ByteBuffer.allocate(4).putInt(0, 4), "n", 5, 9));
        assertThrows(ProtocolException.class, () -> Fields.range(ByteBuffer.allocate(4).putInt(0, 10), "n", 5, 9));
    }

    @Test
    void addressesAndTextRoundTripAndAreBounded() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(600);
        InetAddress v4 = InetAddress.getByName("127.0.0.9");
        InetAddress v6 = InetAddress.getByName("::1");
        Fields.address(b, v4);
        Fields.address(b, v6);
        Fields.text(b, "héllo");
        Fields.text(b, null);
        Fields.text(b, "x".repeat(300));
        b.flip();
        assertEquals(v4, Fields.address(b));
        assertEquals(v6, Fields.address(b));
        assertEquals("héllo", Fields.text(b));
        assertEquals("", Fields.text(b));
        assertEquals("x".repeat(Protocol.MAX_TEXT_BYTES), Fields.text(b), "cut to the limit");
        assertFalse(b.hasRemaining());
        assertThrows(ProtocolException.class, () -> Fields.address(ByteBuffer.wrap(new byte[] {5, 1, 2, 3, 4, 5})));
        ByteBuffer longText = ByteBuffer.allocate(300).putShort((short) 257);
        longText.flip().limit(300);
        assertThrows(ProtocolException.class, () -> Fields.text(longText));
    }

    @Test
    void peerLimitsAreThemselvesBounded() {
        new PeerLimits(1, 1, 64, 0);
        new PeerLimits(HandshakeMessages.MAX_RECEIVES, HandshakeMessages.MAX_SLOTS, HandshakeMessages.MAX_SLOT_BYTES,
                HandshakeMessages.MAX_SCRATCH_BYTES);
        assertThrows(IllegalArgumentException.class, () -> new PeerLimits(0, 1, 64, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerLimits(HandshakeMessages.MAX_RECEIVES + 1, 1, 64, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerLimits(1, 0, 64, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerLimits(1, HandshakeMessages.MAX_SLOTS + 1, 64, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerLimits(1, 1, 63, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new PeerLimits(1, 1, HandshakeMessages.MAX_SLOT_BYTES + 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerLimits(1, 1, 64, -1));
        assertThrows(IllegalArgumentException.class,
                () -> new PeerLimits(1, 1, 64, HandshakeMessages.MAX_SCRATCH_BYTES + 1));
    }

    @Test
    void aPeerAtACapFitsAndOneOverIsNamed() {
        PeerLimits caps = new PeerLimits(100, 10, 4096, 8192);
        ScratchRegion atCap = new ScratchRegion(4096, 7, 8192);
        assertNull(caps.violation(new ReceiveParams(100, 10, 4096, 1024, atCap)));
        assertTrue(caps.violation(new ReceiveParams(101, 10, 4096, 1024, atCap)).contains("peerMaxReceives"));
        assertTrue(caps.violation(new ReceiveParams(100, 11, 4096, 1024, atCap)).contains("peerMaxSlots"));
        assertTrue(caps.violation(new ReceiveParams(100, 10, 4097, 1024, atCap)).contains("peerMaxSlotBytes"));
        assertTrue(caps.violation(new ReceiveParams(100, 10, 4096, 1024, new ScratchRegion(4096, 7, 8193)))
                .contains("peerMaxScratchBytes"));
    }
}
