package dev.virtuoso.verbs.soft.packet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

class PacketCodecTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] SRC = {10, 1, 2, 3};
    private static final byte[] DST = {10, 1, 2, 4};

    /** RDMA WRITE ONLY, "abc" to VA 0x00007f0012345000 rkey 0xdeadbeef, QP 0x123, PSN 0xabcd. */
    private static final String WRITE_ONLY_HEADERS =
            "0a" // opcode RDMA WRITE ONLY
            + "10" // SE 0, MigReq 0, PadCnt 1, TVer 0
            + "ffff" // P_Key
            + "00" + "000123" // reserved, dest QP
            + "80" + "00abcd" // AckReq, PSN
            + "00007f0012345000" + "deadbeef" + "00000003"; // RETH

    @Test
    void encodesAWriteOnlyPacketByteForByte() {
        PacketBuilder b = new PacketBuilder();
        b.begin(RcOpcode.WRITE_ONLY, false, 0x123, true, 0xABCD, 3)
                .reth(0x00007F0012345000L, 0xDEADBEEF, 3);
        b.buffer().put(b.payloadOffset(), new byte[] {'a', 'b', 'c'});
        ByteBuffer out = b.finish(new Icrc(), SRC, DST, 4791, 4791);
        byte[] bytes = new byte[out.remaining()];
        out.get(0, bytes);
        String body = WRITE_ONLY_HEADERS + "616263" + "00"; // payload, one pad byte
        // ICRC computed independently: bitwise CRC-32 over the pseudo-header built by hand
        byte[] pseudo = IcrcTest.concat(HEX.parseHex("ffffffffffffffff"),
                HEX.parseHex("45ff" + "0040" + "0000" + "4000" + "ff" + "11" + "ffff"), SRC, DST,
                HEX.parseHex("12b7" + "12b7" + "002c" + "ffff"),
                HEX.parseHex("0a10ffff" + "ff000123" + "8000abcd"),
                HEX.parseHex(body.substring(24)));
        int crc = BitwiseCrc32.of(pseudo);
        String icrc = String.format("%02x%02x%02x%02x", crc & 0xFF, (crc >>> 8) & 0xFF,
                (crc >>> 16) & 0xFF, crc >>> 24);
        assertEquals(body + icrc, HEX.formatHex(bytes));
    }

    @Test
    void decodesEveryFieldBack() {
        byte[] bytes = HEX.parseHex(WRITE_ONLY_HEADERS + "616263" + "00" + "00000000");
        RocePacket p = new RocePacket();
        assertTrue(p.decode(ByteBuffer.wrap(bytes), 0, bytes.length));
        assertEquals(RcOpcode.WRITE_ONLY, p.opcode);
        assertTrue(p.is(RcOpcode.WRITE | RcOpcode.FIRST | RcOpcode.LAST | RcOpcode.RETH));
        assertEquals(0x123, p.destQp);
        assertEquals(0xABCD, p.psn);
        assertTrue(p.ackReq);
        assertFalse(p.solicited);
        assertEquals(0x00007F0012345000L, p.va);
        assertEquals(0xDEADBEEF, p.rkey);
        assertEquals(3, p.dmaLength);
        assertEquals(28, p.payloadOffset);
        assertEquals(3, p.payloadLength);
        // little-endian buffers read the same (fields are big-endian on the wire)
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertTrue(p.decode(le, 0, bytes.length));
        assertEquals(0xDEADBEEF, p.rkey);
        assertEquals(0x123, p.destQp);
    }

    @Test
    void roundTripsAethAndImmediate() {
        PacketBuilder b = new PacketBuilder();
        b.begin(RcOpcode.ACKNOWLEDGE, false, 0xFFFFFF, false, 0xFFFFFF, 0)
                .aeth(Aeth.RNR_NAK | 14, 0x00BEEF);
        ByteBuffer out = b.finish(new Icrc(), SRC, DST, 1, 2);
        RocePacket p = new RocePacket();
        assertTrue(p.decode(out, 0, out.remaining()));
        assertEquals(RcOpcode.ACKNOWLEDGE, p.opcode);
        assertTrue(Aeth.isRnrNak(p.syndrome));
        assertEquals(14, p.syndrome & 0x1F);
        assertEquals(0x00BEEF, p.msn);
        assertEquals(0xFFFFFF, p.psn);
        assertEquals(20, out.remaining());

        b.begin(RcOpcode.WRITE_ONLY_WITH_IMM, true, 7, true, 9, 5).reth(1, 2, 5).imm(0xCAFEBABE);
        out = b.finish(new Icrc(), SRC, DST, 1, 2);
        assertTrue(p.decode(out, 0, out.remaining()));
        assertEquals(0xCAFEBABE, p.imm);
        assertEquals(5, p.payloadLength);
        assertEquals(3, p.padCount);
        assertTrue(p.solicited);
        assertEquals(12 + 16 + 4 + 8 + 4, out.remaining());
    }

    @Test
    void rejectsMalformedDatagrams() {
        RocePacket p = new RocePacket();
        byte[] good = HEX.parseHex(WRITE_ONLY_HEADERS + "616263" + "00" + "00000000");
        assertTrue(p.decode(ByteBuffer.wrap(good), 0, good.length));
        assertFalse(p.decode(ByteBuffer.wrap(good), 0, 15), "shorter than BTH + ICRC");
        assertFalse(p.decode(ByteBuffer.wrap(good), 0, 30), "shorter than its RETH");
        assertFalse(decodeWith(good, 0, (byte) 0x1A), "unknown opcode");
        assertFalse(decodeWith(good, 0, (byte) 0x64), "UD opcode on an RC transport");
        assertFalse(decodeWith(good, 1, (byte) 0x11), "transport version 1");
        byte[] padWithoutPayload = HEX.parseHex(WRITE_ONLY_HEADERS + "00000000");
        padWithoutPayload[1] = 0x30;
        assertFalse(p.decode(ByteBuffer.wrap(padWithoutPayload), 0, padWithoutPayload.length),
                "pad count 3 without payload bytes");
        assertFalse(decodeWith(good, 2, (byte) 0x12), "foreign P_Key");
        byte[] ack = HEX.parseHex("1100ffff00000001000000011f00000100000000");
        assertTrue(p.decode(ByteBuffer.wrap(ack), 0, ack.length));
        byte[] ackWithPayload = HEX.parseHex("1100ffff00000001000000011f000001" + "01020304"
                + "00000000");
        assertFalse(p.decode(ByteBuffer.wrap(ackWithPayload), 0, ackWithPayload.length),
                "ACK carrying payload");
        byte[] unaligned = HEX.parseHex("0400ffff000000010000000101020300000000");
        assertFalse(p.decode(ByteBuffer.wrap(unaligned), 0, unaligned.length),
                "payload plus pad not a multiple of 4");
    }

    private static boolean decodeWith(byte[] good, int index, byte value) {
        byte[] b = good.clone();
        b[index] = value;
        return new RocePacket().decode(ByteBuffer.wrap(b), 0, b.length);
    }

    @Test
    void opcodeHelpersAndHeaderLengthsFollowTheTable() {
        assertEquals(RcOpcode.SEND_ONLY_WITH_IMM, RcOpcode.send(true, true, true));
        assertEquals(RcOpcode.SEND_MIDDLE, RcOpcode.send(false, false, true));
        assertEquals(RcOpcode.WRITE_LAST_WITH_IMM, RcOpcode.write(false, true, true));
        assertEquals(RcOpcode.WRITE_FIRST, RcOpcode.write(true, false, true));
        assertEquals(RcOpcode.READ_RESPONSE_MIDDLE, RcOpcode.readResponse(false, false));
        assertEquals(12, RcOpcode.headerBytes(RcOpcode.SEND_MIDDLE));
        assertEquals(16, RcOpcode.headerBytes(RcOpcode.SEND_LAST_WITH_IMM));
        assertEquals(28, RcOpcode.headerBytes(RcOpcode.WRITE_FIRST));
        assertEquals(32, RcOpcode.headerBytes(RcOpcode.WRITE_ONLY_WITH_IMM));
        assertEquals(28, RcOpcode.headerBytes(RcOpcode.READ_REQUEST));
        assertEquals(16, RcOpcode.headerBytes(RcOpcode.READ_RESPONSE_FIRST));
        assertEquals(12, RcOpcode.headerBytes(RcOpcode.READ_RESPONSE_MIDDLE));
        assertEquals(16, RcOpcode.headerBytes(RcOpcode.ACKNOWLEDGE));
        int valid = 0;
        for (int op = 0; op < 256; op++) {
            if (RcOpcode.flags(op) != 0) {
                valid++;
            }
        }
        assertEquals(18, valid);
        assertArrayEquals(new long[] {655_360_000L, 10_000L, 491_520_000L},
                new long[] {Aeth.rnrTimerNanos(0), Aeth.rnrTimerNanos(1), Aeth.rnrTimerNanos(31)});
    }
}
