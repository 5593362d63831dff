package dev.virtuoso.verbs.soft.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class IcrcTest {
    private static final HexFormat HEX = HexFormat.of();

    /**
     * A RoCEv2 CNP captured on a Mellanox ConnectX-4 Lx (published with Scapy's RoCE tests): real
     * hardware computed this ICRC, with IP identification 0x718c and DF, TOS 0xc2, TTL 0x40, UDP
     * source port 0.
     */
    @Test
    void matchesTheIcrcOfAPacketCapturedFromHardware() {
        byte[] ip = HEX.parseHex("45c2003c718c400040119161" + "0a001101" + "0a001201");
        byte[] udpPayload = HEX.parseHex("8100ffff400001180000000000000000"
                + "00000000000000000000000082fd002a");
        assertEquals(0x3c, ((ip[2] & 0xFF) << 8) | (ip[3] & 0xFF));
        ByteBuffer d = ByteBuffer.wrap(udpPayload);
        int icrc = new Icrc().compute(new byte[] {10, 0, 17, 1}, new byte[] {10, 0, 18, 1},
                0x718c, 0x4000, 0, 4791, d, 0, udpPayload.length);
        assertEquals(Icrc.stored(d, 0, udpPayload.length), icrc);
        assertEquals(0x2a00fd82, icrc, "stored least significant byte first: 82 fd 00 2a");
    }

    @Test
    void hardwareCaptureVerifiesWithoutKnowingItsIpId() {
        byte[] udpPayload = HEX.parseHex("8100ffff400001180000000000000000"
                + "00000000000000000000000082fd002a");
        ByteBuffer d = ByteBuffer.wrap(udpPayload);
        Icrc c = new Icrc();
        byte[] src = {10, 0, 17, 1};
        byte[] dst = {10, 0, 18, 1};
        assertTrue(c.verify(src, dst, 0, 4791, d, 0, udpPayload.length), "ID 0x718c unknown");
        udpPayload[20] ^= 0x10;
        assertFalse(c.verify(src, dst, 0, 4791, d, 0, udpPayload.length), "corrupted payload");
    }

    /**
     * Any IPv4 ID verifies; a corrupted payload, address or port (nearly) never does: only 1 in
     * 65536 corruptions can look like an ID change, so with these seeds none does.
     */
    @Test
    void verifyAcceptsEveryIpv4IdAndRejectsCorruption() {
        SplittableRandom r = new SplittableRandom(16);
        Icrc c = new Icrc();
        byte[] src = {127, 0, 0, 1};
        byte[] dst = {127, 0, 0, 2};
        int rejected = 0;
        for (int round = 0; round < 200; round++) {
            int len = 16 + r.nextInt(4200);
            ByteBuffer d = ByteBuffer.allocate(len);
            for (int i = 0; i < len; i++) {
                d.put(i, (byte) r.nextInt());
            }
            int id = r.nextInt(1 << 16);
            Icrc.store(d, 0, len, c.compute(src, dst, id, Icrc.IPV4_DF, 4791, 4791, d, 0, len));
            assertTrue(c.verify(src, dst, 4791, 4791, d, 0, len), "ID " + id + ", length " + len);
            int at = 12 + r.nextInt(len - 16);
            int flip = 1 << r.nextInt(8);
            d.put(at, (byte) (d.get(at) ^ flip));
            if (!c.verify(src, dst, 4791, 4791, d, 0, len)) {
                rejected++;
            }
            d.put(at, (byte) (d.get(at) ^ flip));
            assertFalse(c.verify(src, dst, 4791, 4790, d, 0, len), "other port");
        }
        assertEquals(200, rejected);
    }

    @Test
    void ipv6VerifiesOnlyTheExactValue() {
        byte[] payload = HEX.parseHex("0400ffff00000123800abcde" + "11223344" + "00000000");
        byte[] a = new byte[16];
        byte[] b = new byte[16];
        a[15] = 1;
        b[15] = 2;
        ByteBuffer d = ByteBuffer.wrap(payload);
        Icrc c = new Icrc();
        int exact = c.compute(a, b, 4791, 4791, d, 0, payload.length);
        Icrc.store(d, 0, payload.length, exact);
        assertTrue(c.verify(a, b, 4791, 4791, d, 0, payload.length));
        Icrc.store(d, 0, payload.length, exact ^ 1);
        assertFalse(c.verify(a, b, 4791, 4791, d, 0, payload.length));
    }

    @Test
    void coversTheIpIdentificationButNotTosTtlOrFecn() {
        byte[] payload = HEX.parseHex("0a00ffff00000123800abcde" + "00000000deadbeef00000000");
        byte[] src = {127, 0, 0, 1};
        byte[] dst = {127, 0, 0, 2};
        Icrc c = new Icrc();
        ByteBuffer d = ByteBuffer.wrap(payload);
        int base = c.compute(src, dst, 0, Icrc.IPV4_DF, 4791, 4791, d, 0, 24);
        assertNotEquals(base, c.compute(src, dst, 1, Icrc.IPV4_DF, 4791, 4791, d, 0, 24));
        assertNotEquals(base, c.compute(src, dst, 0, Icrc.IPV4_DF, 4790, 4791, d, 0, 24));
        payload[4] = (byte) 0xC0; // FECN and BECN are variant
        assertEquals(base, c.compute(src, dst, 0, Icrc.IPV4_DF, 4791, 4791, d, 0, 24));
        payload[5] = 1; // but the QPN is not
        assertNotEquals(base, c.compute(src, dst, 0, Icrc.IPV4_DF, 4791, 4791, d, 0, 24));
    }

    @Test
    void preservesTheBufferPositionAndLimitAndWorksOnDirectBuffers() {
        byte[] payload = HEX.parseHex("0a00ffff00000123800abcde" + "0102030405060708090a0b0c");
        ByteBuffer heap = ByteBuffer.wrap(payload);
        ByteBuffer direct = ByteBuffer.allocateDirect(40);
        direct.put(8, payload);
        direct.position(3).limit(37);
        byte[] s = {1, 2, 3, 4};
        Icrc c = new Icrc();
        assertEquals(c.compute(s, s, 7, 7, heap, 0, 24), c.compute(s, s, 7, 7, direct, 8, 24));
        assertEquals(3, direct.position());
        assertEquals(37, direct.limit());
    }

    @Test
    void ipv6PseudoHeaderMasksClassFlowAndHopLimit() {
        byte[] payload = HEX.parseHex("0400ffff00000123800abcde" + "11223344");
        byte[] a = new byte[16];
        byte[] b = new byte[16];
        a[15] = 1;
        b[15] = 2;
        ByteBuffer d = ByteBuffer.wrap(payload);
        int v6 = new Icrc().compute(a, b, 4791, 4791, d, 0, payload.length);
        int expected = BitwiseCrc32.of(concat(HEX.parseHex("ffffffffffffffff"),
                HEX.parseHex("6fffffff" + "0018" + "11" + "ff"), a, b,
                HEX.parseHex("12b712b7" + "0018" + "ffff"),
                HEX.parseHex("0400ffffff000123800abcde")));
        assertEquals(expected, v6);
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int i = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, i, p.length);
            i += p.length;
        }
        return out;
    }
}
