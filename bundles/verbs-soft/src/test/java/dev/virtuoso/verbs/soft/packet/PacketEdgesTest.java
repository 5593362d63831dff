package dev.virtuoso.verbs.soft.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/**
 * The wire format at its edges: the shortest packets, buffers with the packet not at index 0,
 * header offsets of each extension header, P_Key byte order, the builder's refusals, and the
 * opcode helpers for every first/last/immediate combination.
 */
class PacketEdgesTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] SRC = {10, 1, 2, 3};
    private static final byte[] DST = {10, 1, 2, 4};

    @Test
    void psnComparisonsAreStrictWhereTheyShouldBe() {
        assertFalse(Psn.gt(7, 7));
        assertFalse(Psn.gt(7, 8));
        assertTrue(Psn.gt(8, 7));
        assertFalse(Psn.ge(7, 8));
        assertTrue(Psn.ge(8, 7));
        assertFalse(Psn.le(8, 7));
        assertTrue(Psn.le(7, 8));
        assertFalse(Psn.lt(8, 7));
        assertEquals(6, Psn.next(5));
        assertEquals(4, Psn.prev(5));
        assertTrue(Psn.gt(0, Psn.MASK), "0 follows the last PSN");
        assertFalse(Psn.ge(Psn.MASK, 0));
    }

    @Test
    void theShortestPacketDecodes() {
        // SEND ONLY without payload: BTH and ICRC, 16 bytes, pad 0
        byte[] bytes = HEX.parseHex("0400ffff00000007000000090000000000");
        RocePacket p = new RocePacket();
        assertTrue(p.decode(ByteBuffer.wrap(bytes), 0, 16));
        assertEquals(0, p.payloadLength);
        assertEquals(12, p.payloadOffset);
        assertEquals(7, p.destQp);
        assertEquals(9, p.psn);
        assertFalse(p.ackReq);
        assertFalse(p.decode(ByteBuffer.wrap(bytes), 0, 15));
    }

    /** No path MTU exceeds 4096 bytes: a longer payload is malformed before anything reads it. */
    @Test
    void aPayloadLongerThanTheLargestMtuIsMalformed() {
        RocePacket p = new RocePacket();
        ByteBuffer b = ByteBuffer.allocate(12 + 4100 + 4);
        b.put(0, (byte) RcOpcode.SEND_ONLY).putShort(2, (short) 0xFFFF).putInt(4, 7);
        assertTrue(p.decode(b, 0, 12 + 4096 + 4));
        assertEquals(RocePacket.MAX_PAYLOAD, p.payloadLength);
        assertFalse(p.decode(b, 0, 12 + 4100 + 4), "4100 bytes of payload");
        b.put(1, (byte) (3 << 4)); // 4100 with 3 of pad is 4097 bytes of payload
        assertFalse(p.decode(b, 0, 12 + 4100 + 4), "4097 bytes of payload");
        assertTrue(p.decode(b, 0, 12 + 4096 + 4), "4093 bytes and 3 of pad");
        assertEquals(4093, p.payloadLength);
    }

    @Test
    void aPacketAfterOtherBytesDecodesWithinTheLimitOnly() {
        byte[] pkt = HEX.parseHex("0400ffff0000000780000009" + "61626364" + "00000000");
        ByteBuffer b = ByteBuffer.allocate(8 + pkt.length);
        b.put(8, pkt);
        RocePacket p = new RocePacket();
        assertTrue(p.decode(b, 8, pkt.length));
        assertEquals(8, p.offset);
        assertEquals(pkt.length, p.length);
        assertEquals(20, p.payloadOffset);
        assertEquals(4, p.payloadLength);
        assertTrue(p.ackReq);
        assertSame(b, p.buffer);
        assertFalse(p.decode(b, 9, pkt.length), "one byte beyond the limit");
        assertFalse(p.decode(b, -1, pkt.length), "negative offset");
        b.limit(8 + pkt.length - 1);
        assertFalse(p.decode(b, 8, pkt.length), "limit cuts the ICRC");
    }

    @Test
    void payloadStartsAfterEachExtensionHeader() {
        PacketBuilder b = new PacketBuilder();
        RocePacket p = new RocePacket();
        b.begin(RcOpcode.READ_RESPONSE_FIRST, false, 1, false, 2, 8).aeth(Aeth.ACK_UNLIMITED, 3);
        assertEquals(16, b.payloadOffset());
        ByteBuffer out = b.finish(new Icrc(), SRC, DST, 1, 2);
        assertTrue(p.decode(out, 0, out.remaining()));
        assertEquals(16, p.payloadOffset);
        assertEquals(8, p.payloadLength);
        assertEquals(3, p.msn);
        assertEquals(Aeth.ACK_UNLIMITED, p.syndrome);

        b.begin(RcOpcode.SEND_LAST_WITH_IMM, false, 1, false, 2, 4).imm(0x01020304);
        out = b.finish(new Icrc(), SRC, DST, 1, 2);
        assertEquals(RcOpcode.SEND_LAST_WITH_IMM, out.get(0));
        assertEquals(0x01020304, out.getInt(12), "ImmDt right after the BTH without RETH");
        assertTrue(p.decode(out, 0, out.remaining()));
        assertEquals(0x01020304, p.imm);
        assertEquals(16, p.payloadOffset);

        b.begin(RcOpcode.WRITE_FIRST, false, 1, false, 2, 4).reth(5, 6, 4);
        out = b.finish(new Icrc(), SRC, DST, 1, 2);
        assertTrue(p.decode(out, 0, out.remaining()));
        assertEquals(28, p.payloadOffset);
        assertEquals(5, p.va);
        assertEquals(6, p.rkey);
    }

    @Test
    void flagTestsNeedEveryBit() {
        PacketBuilder b = new PacketBuilder();
        b.begin(RcOpcode.WRITE_MIDDLE, false, 1, false, 2, 4);
        ByteBuffer out = b.finish(new Icrc(), SRC, DST, 1, 2);
        RocePacket p = new RocePacket();
        assertTrue(p.decode(out, 0, out.remaining()));
        assertTrue(p.is(RcOpcode.WRITE));
        assertFalse(p.is(RcOpcode.READ));
        assertFalse(p.is(RcOpcode.WRITE | RcOpcode.FIRST));
        assertTrue(p.toString().startsWith("RDMA_WRITE_MIDDLE qp=1 psn=2"), p.toString());
    }

    @Test
    void pKeyIsReadInNetworkOrderFromEitherBufferOrder() {
        // full member bit clear: 0x7FFF is the default partition too; 0xFF7F is not
        byte[] limited = HEX.parseHex("04007fff00000007000000090000000000");
        byte[] foreign = HEX.parseHex("0400ff7f00000007000000090000000000");
        RocePacket p = new RocePacket();
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            assertTrue(p.decode(ByteBuffer.wrap(limited).order(order), 0, 16), order.toString());
            assertFalse(p.decode(ByteBuffer.wrap(foreign).order(order), 0, 16), order.toString());
        }
    }

    @Test
    void theBuilderRefusesWhatTheOpcodeCannotCarry() {
        PacketBuilder b = new PacketBuilder();
        assertThrows(IllegalArgumentException.class,
                () -> b.begin(RcOpcode.READ_REQUEST, false, 1, false, 2, 1));
        assertThrows(IllegalArgumentException.class,
                () -> b.begin(RcOpcode.ACKNOWLEDGE, false, 1, false, 2, 4));
        assertThrows(IllegalArgumentException.class,
                () -> b.begin(RcOpcode.SEND_ONLY, false, 1, false, 2, 4097));
        assertThrows(IllegalArgumentException.class,
                () -> b.begin(RcOpcode.SEND_ONLY, false, 1, false, 2, -1));
        assertThrows(IllegalArgumentException.class, () -> b.begin(0x1A, false, 1, false, 2, 0));
        assertSame(b, b.begin(RcOpcode.SEND_ONLY, false, 1, false, 2, 4096));
        assertEquals(4096 + 16, b.length());
        assertEquals(4096, b.payloadLength());
        assertEquals(RcOpcode.SEND_ONLY, b.opcode());
        assertThrows(IllegalStateException.class, () -> b.reth(1, 2, 3));
        assertThrows(IllegalStateException.class, () -> b.aeth(Aeth.ACK_UNLIMITED, 0));
        assertThrows(IllegalStateException.class, () -> b.imm(1));
        b.begin(RcOpcode.WRITE_ONLY_WITH_IMM, false, 1, false, 2, 0);
        assertSame(b, b.reth(1, 2, 0));
        assertSame(b, b.imm(1));
        assertThrows(IllegalStateException.class, () -> b.aeth(Aeth.ACK_UNLIMITED, 0));
        b.begin(RcOpcode.ACKNOWLEDGE, false, 1, false, 2, 0);
        assertSame(b, b.aeth(Aeth.ACK_UNLIMITED, 0));
        assertThrows(IllegalStateException.class, () -> b.imm(1));
    }

    @Test
    void finishZeroesThePad() {
        PacketBuilder b = new PacketBuilder();
        b.begin(RcOpcode.SEND_ONLY, false, 1, false, 2, 1);
        b.buffer().put(12, (byte) 'x').put(13, (byte) 1).put(14, (byte) 2).put(15, (byte) 3);
        ByteBuffer out = b.finish(new Icrc(), SRC, DST, 1, 2);
        assertEquals(20, out.limit());
        assertEquals(0, out.position());
        assertEquals('x', out.get(12));
        assertEquals(0, out.get(13) | out.get(14) | out.get(15));
        RocePacket p = new RocePacket();
        assertTrue(p.decode(out, 0, out.remaining()));
        assertEquals(3, p.padCount);
        assertTrue(new Icrc().verify(SRC, DST, 1, 2, out, 0, out.remaining()));
    }

    @Test
    void opcodeHelpersCoverEveryCombination() {
        assertEquals(RcOpcode.SEND_ONLY, RcOpcode.send(true, true, false));
        assertEquals(RcOpcode.SEND_ONLY_WITH_IMM, RcOpcode.send(true, true, true));
        assertEquals(RcOpcode.SEND_FIRST, RcOpcode.send(true, false, false));
        assertEquals(RcOpcode.SEND_LAST, RcOpcode.send(false, true, false));
        assertEquals(RcOpcode.SEND_LAST_WITH_IMM, RcOpcode.send(false, true, true));
        assertEquals(RcOpcode.SEND_MIDDLE, RcOpcode.send(false, false, false));
        assertEquals(RcOpcode.WRITE_ONLY, RcOpcode.write(true, true, false));
        assertEquals(RcOpcode.WRITE_ONLY_WITH_IMM, RcOpcode.write(true, true, true));
        assertEquals(RcOpcode.WRITE_FIRST, RcOpcode.write(true, false, false));
        assertEquals(RcOpcode.WRITE_LAST, RcOpcode.write(false, true, false));
        assertEquals(RcOpcode.WRITE_LAST_WITH_IMM, RcOpcode.write(false, true, true));
        assertEquals(RcOpcode.WRITE_MIDDLE, RcOpcode.write(false, false, false));
        assertEquals(RcOpcode.READ_RESPONSE_ONLY, RcOpcode.readResponse(true, true));
        assertEquals(RcOpcode.READ_RESPONSE_FIRST, RcOpcode.readResponse(true, false));
        assertEquals(RcOpcode.READ_RESPONSE_LAST, RcOpcode.readResponse(false, true));
        assertEquals(RcOpcode.READ_RESPONSE_MIDDLE, RcOpcode.readResponse(false, false));
        assertEquals("RDMA_WRITE_ONLY", RcOpcode.name(RcOpcode.WRITE_ONLY));
        assertEquals("0x1A", RcOpcode.name(0x1A));
    }

    @Test
    void aComputedIcrcNeedsBthAndIcrc() {
        ByteBuffer d = ByteBuffer.allocate(16);
        Icrc c = new Icrc();
        Icrc.store(d, 0, 16, c.compute(SRC, DST, 1, 2, d, 0, 16));
        assertTrue(c.verify(SRC, DST, 1, 2, d, 0, 16));
        assertThrows(IllegalArgumentException.class, () -> c.compute(SRC, DST, 1, 2, d, 0, 15));
    }
}
