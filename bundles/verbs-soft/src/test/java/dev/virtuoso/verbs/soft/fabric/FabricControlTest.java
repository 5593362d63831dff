package dev.virtuoso.verbs.soft.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.verbs.soft.fabric.api.FabricControl;

/** The service view of a fabric used by the shell and the launcher. */
class FabricControlTest {

    @Test
    void controlsLinksByNameAndReportsCounters() throws Exception {
        try (FabricTestSupport f = new FabricTestSupport(1, "rate=1g")) {
            FabricControl c = f.net.control();
            assertEquals("test", c.name());
            assertEquals(List.of("A", "B"), c.hosts());
            assertEquals(List.of("10.0.0.2", "10.0.1.2"), c.addresses("B"));
            assertEquals(List.of("10.0.0.1-10.0.0.2"), c.links());
            assertTrue(c.spec("10.0.0.2-10.0.0.1").startsWith("rate=1000000000 "));

            c.down("10.0.0.1-10.0.0.2");
            assertFalse(c.isUp("10.0.0.2-10.0.0.1"));
            f.send(f.a, f.b, 1, 100);
            c.up("10.0.0.1-10.0.0.2");
            c.configure("10.0.0.1-10.0.0.2", "delay=1ms loss=0");
            assertEquals(1_000_000L, f.link().spec().delayNanos());
            assertEquals(0, f.link().spec().rateBitsPerSecond(), "unspecified keys take defaults");
            f.send(f.a, f.b, 2, 100);
            assertEquals(List.of(2), FabricTestSupport.receive(f.wireB, f.b, 1, 1000));
            var counters = c.counters("10.0.0.1-10.0.0.2");
            assertEquals(2L, counters.get("OFFERED_PACKETS"));
            assertEquals(1L, counters.get("DROPPED_DOWN"));
            assertEquals(1L, counters.get("DELIVERED_PACKETS"));
            assertEquals(LinkCounter.values().length, counters.size());

            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.down("A-C"));
            assertTrue(e.getMessage().contains("10.0.0.1-10.0.0.2"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> c.up("nonsense"));
            assertThrows(IllegalArgumentException.class, () -> c.configure("10.0.0.1-10.0.0.2", "rate=x"));
            assertThrows(IllegalArgumentException.class, () -> c.addresses("C"));
        }
    }
}
