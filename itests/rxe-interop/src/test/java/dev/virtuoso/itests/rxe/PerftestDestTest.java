package dev.virtuoso.itests.rxe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PerftestDestTest {

    /** The text perftest's KEY_PRINT_FMT_GID produces for these values (checked by hand against the format). */
    private static final String PERFTEST_TEXT = "0000:0010:000011:a1b2c3:00001234:0000561234abcd00:"
            + "00:00:00:00:00:00:00:00:00:00:ff:ff:c0:00:02:02:00000000:";

    @Test
    void encodesExactlyAsPerftestSprintf() throws Exception {
        PerftestDest d = new PerftestDest(0, 16, 0x11, 0xa1b2c3, 0x1234, 0x561234abcd00L,
                PerftestDest.gidOf(InetAddress.getByName("192.0.2.2")), 0);
        byte[] msg = d.encode();
        assertEquals(PerftestDest.MESSAGE_SIZE, msg.length);
        assertEquals(0, msg[107], "NUL-terminated");
        assertEquals(PERFTEST_TEXT, new String(msg, 0, 107, StandardCharsets.US_ASCII));
    }

    @Test
    void decodesPerftestText() throws Exception {
        byte[] msg = Arrays.copyOf(PERFTEST_TEXT.getBytes(StandardCharsets.US_ASCII), 108);
        PerftestDest d = PerftestDest.decode(msg);
        assertEquals(0x11, d.qpn());
        assertEquals(0xa1b2c3, d.psn());
        assertEquals(0x1234, d.rkey());
        assertEquals(0x561234abcd00L, d.vaddr());
        assertEquals(16, d.outReads());
        assertEquals(InetAddress.getByName("192.0.2.2"), d.gidAddress());
    }

    @Test
    void roundTripsFullWidthValues() throws Exception {
        PerftestDest d = new PerftestDest(0xffff, 0xffff, 0xffffff, 0xffffff, 0xfedcba98, 0xffffffffffffffffL,
                PerftestDest.gidOf(InetAddress.getByName("255.255.255.255")), 0xffffffff);
        PerftestDest back = PerftestDest.decode(d.encode());
        assertEquals(d, back);
        assertArrayEquals(d.gid(), back.gid());
    }

    @Test
    void rejectsMalformedRecords() {
        assertThrows(IllegalArgumentException.class, () -> PerftestDest.decode(new byte[59]));
        byte[] junk = Arrays.copyOf("0000:zz:".getBytes(StandardCharsets.US_ASCII), 108);
        assertThrows(IllegalArgumentException.class, () -> PerftestDest.decode(junk));
        byte[] badHex = Arrays.copyOf(PERFTEST_TEXT.replace("a1b2c3", "a1b2cg").getBytes(StandardCharsets.US_ASCII), 108);
        assertThrows(IllegalArgumentException.class, () -> PerftestDest.decode(badHex));
    }

    @Test
    void rejectsNonIpv4MappedGid() {
        byte[] gid = new byte[16];
        gid[0] = (byte) 0xfe;
        gid[1] = (byte) 0x80;
        PerftestDest d = new PerftestDest(0, 0, 1, 1, 1, 0, gid, 0);
        assertThrows(IllegalStateException.class, d::gidAddress);
    }
}
