package dev.virtuoso.policy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** {@code latency-link}: a row per size, none faster than the link can carry the payload. */
class LinkLatencyTest {
    @Test
    void aRawPingPongOverARateLimitedLinkTakesAtLeastTheLinksTime() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        LinkLatency.run(new PrintStream(b, true, StandardCharsets.UTF_8), "rate=1g", 20);
        String[] rows = b.toString(StandardCharsets.UTF_8).trim().split("\n");
        assertEquals(LinkLatency.HEADER, rows[0]);
        assertEquals(LinkLatency.SIZES.length + 1, rows.length, String.join("\n", rows));
        for (int i = 1; i < rows.length; i++) {
            String[] f = rows[i].split(",");
            assertEquals(String.valueOf(LinkLatency.SIZES[i - 1]), f[1], rows[i]);
            double p10 = Double.parseDouble(f[2]);
            double payload = Double.parseDouble(f[5]);
            assertEquals(LinkLatency.SIZES[i - 1] * 8e6 / 1e9, payload, 0.05, rows[i]);
            // the link's rate is a floor: a one-way trip cannot beat the payload's serialisation
            assertTrue(p10 >= payload, "faster than the link: " + rows[i]);
        }
    }
}
