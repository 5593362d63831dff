package dev.virtuoso.commands.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class UnitsTest {

    @Test
    void sizes() {
        assertEquals(4096, Units.parseSize("4096", "x"));
        assertEquals(64 * 1024, Units.parseSize("64k", "x"));
        assertEquals(8L << 20, Units.parseSize("8MiB", "x"));
        assertEquals(1L << 30, Units.parseSize("1G", "x"));
        assertEquals(10, Units.parseSize("10B", "x"));
        for (String bad : new String[] {"", "-1", "1.5M", "M", "99999999999999G"}) {
            assertThrows(IllegalArgumentException.class, () -> Units.parseSize(bad, "x"), bad);
        }
    }

    @Test
    void rates() {
        assertEquals(100_000_000L, Units.parseRate("100m", "x"));
        assertEquals(1_500_000_000L, Units.parseRate("1.5g", "x"));
        assertEquals(500_000L, Units.parseRate("500kbit", "x"));
        for (String bad : new String[] {"0", "fast", "-5m"}) {
            assertThrows(IllegalArgumentException.class, () -> Units.parseRate(bad, "x"), bad);
        }
    }

    @Test
    void printing() {
        assertEquals("64 MiB", Units.bytes(64L << 20));
        assertEquals("1.5 MiB", Units.bytes(3L << 19));
        assertEquals("4 KiB", Units.bytes(4096));
        assertEquals("100 B", Units.bytes(100));
        assertEquals("300.0 Mbit/s", Units.rate(300e6));
        assertEquals("1.25 Gbit/s", Units.rate(1.25e9));
    }
}
