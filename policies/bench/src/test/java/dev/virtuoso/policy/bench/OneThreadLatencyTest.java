package dev.virtuoso.policy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code latency-one-thread} on the fabric: one thread drives both ends (every arrival checked for
 * its sequence number by the bench itself), a raw QP row and an MP_SEND row per size, each with the
 * mean time of a post and of a poll that takes an arrival and the datagrams sent per round trip;
 * with one receive at a time and with receives posted ahead.
 */
class OneThreadLatencyTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void oneThreadDrivesBothEndsOfBothPingPongs(int rxDepth) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        OneThreadLatency.run(new PrintStream(b, true, StandardCharsets.UTF_8), "fabric", 50, rxDepth);
        String[] rows = b.toString(StandardCharsets.UTF_8).trim().split("\n");
        assertEquals(4, rows.length, String.join("\n", rows));
        String[] systems = {"qp", "mp_send", "qp", "mp_send"};
        String[] sizes = {"8", "8", "4096", "4096"};
        for (int i = 0; i < rows.length; i++) {
            String[] f = rows[i].split(",");
            assertEquals(OneThreadLatency.HEADER.split(",").length, f.length, rows[i]);
            assertEquals("fabric", f[0]);
            assertEquals(systems[i], f[1], rows[i]);
            assertEquals(sizes[i], f[3], rows[i]);
            assertTrue(Double.parseDouble(f[4]) > 0, "a round trip takes time: " + rows[i]);
            assertTrue(Long.parseLong(f[7]) > 0, "a post takes time: " + rows[i]);
            assertTrue(Long.parseLong(f[8]) > 0, "a poll that takes an arrival takes time: " + rows[i]);
            // two messages a round trip at least, each a datagram or more
            assertTrue(Double.parseDouble(f[9]) >= 2, "datagrams per round trip: " + rows[i]);
            if (systems[i].equals("qp")) {
                assertEquals("1.00", f[6], rows[i]);
            }
        }
    }
}
