package dev.virtuoso.commands.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.commands.cli.CommandError;

class ScaleOptionsTest {
    private static ScaleOptions parse(String... args) {
        return ScaleOptions.from(ScaleOptions.SPEC.parse(args));
    }

    @Test
    void defaultsAreTheIssuesRunsOnTheUdpWire() {
        ScaleOptions o = parse();
        assertEquals(List.of(1, 8, 32, 128), o.counts());
        assertEquals(2, o.paths());
        assertEquals(16L << 20, o.bytesPerConnection());
        assertEquals(256, o.messages());
        assertEquals("udp", o.wire());
        assertEquals(2L * 4 * 65536, o.applicationBytesPerConnection());
        assertEquals(64, o.outstandingPerEnd(), "max(64, 2 x depth)");
        assertEquals(0, o.slots(), "the API's");
        assertEquals(0, o.slotBytes(), "the API's");
    }

    @Test
    void outstandingAndSlotsAreCheckedAndPassedOn() {
        assertEquals(200, parse("-t", "100").outstandingPerEnd(), "2 x depth");
        ScaleOptions o = parse("--max-outstanding", "1024", "--slots", "3");
        assertEquals(1024, o.outstandingPerEnd());
        assertEquals(3, o.slots());
        assertThrows(CommandError.class, () -> parse("--slots", "2"), "control messages need 3 slots");
        assertThrows(CommandError.class, () -> parse("--max-outstanding", "0"));
        assertEquals(65536, parse("--slot-bytes", "64K").slotBytes());
        assertThrows(CommandError.class, () -> parse("--slot-bytes", "63"), "a control message needs 64 bytes");
        assertThrows(CommandError.class, () -> parse("--slot-bytes", "2M"));
    }

    @Test
    void countsAreSortedAndChecked() {
        ScaleOptions o = parse("-c", "1024,1,32", "--wire", "fabric", "--no-iperf");
        assertEquals(List.of(1, 32, 1024), o.counts());
        assertEquals("fabric", o.wire());
        assertFalse(o.iperf());
        assertThrows(CommandError.class, () -> parse("-c", "0"));
        assertThrows(CommandError.class, () -> parse("-c", "8,x"));
        assertThrows(CommandError.class, () -> parse("-c", "5000"));
        assertThrows(CommandError.class, () -> parse("-b", "100K", "-s", "64K"), "bytes not a multiple of the size");
    }
}
