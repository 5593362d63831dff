package dev.virtuoso.itests.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.virtuoso.verbs.soft.packet.Icrc;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The soft RNIC's ICRC against a frame the Linux kernel's rxe put on the wire (captured on the tap
 * of the qemu guest, IP header onward): same value, given the IPv4 ID and flags rxe used.
 */
class IcrcAgainstRxeTest {

    @Test
    void softIcrcMatchesRxeFrame() throws IOException {
        byte[] ip = frame("rxe-frames/ud-cm-req-from-rxe.hex");
        int ihl = (ip[0] & 0x0F) * 4;
        int ipId = u16(ip, 4);
        int flags = u16(ip, 6);
        byte[] src = Arrays.copyOfRange(ip, 12, 16);
        byte[] dst = Arrays.copyOfRange(ip, 16, 20);
        int srcPort = u16(ip, ihl);
        int dstPort = u16(ip, ihl + 2);
        ByteBuffer udpPayload = ByteBuffer.wrap(ip, ihl + 8, ip.length - ihl - 8).slice();
        int len = udpPayload.remaining();
        assertEquals(4791, dstPort);
        assertEquals(0x4000, flags, "rxe sends with DF");
        assertNotEquals(0, ipId, "rxe's IPv4 ID is not 0: receivers cannot assume it");
        Icrc icrc = new Icrc();
        int computed = icrc.compute(src, dst, ipId, flags, srcPort, dstPort, udpPayload, 0, len);
        assertEquals(Icrc.stored(udpPayload, 0, len), computed);
        assertNotEquals(Icrc.stored(udpPayload, 0, len),
                icrc.compute(src, dst, srcPort, dstPort, udpPayload, 0, len), "ID 0 assumed: must differ");
        assertTrue(icrc.verify(src, dst, srcPort, dstPort, udpPayload, 0, len),
                "the receive check, which cannot see the IP ID, accepts rxe's frame");
    }

    private static byte[] frame(String resource) throws IOException {
        try (InputStream in = IcrcAgainstRxeTest.class.getClassLoader().getResourceAsStream(resource)) {
            return HexFormat.of().parseHex(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
        }
    }

    private static int u16(byte[] b, int off) {
        return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
    }
}
