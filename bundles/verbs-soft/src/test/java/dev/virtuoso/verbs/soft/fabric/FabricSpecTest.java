package dev.virtuoso.verbs.soft.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The textual fabric and link specs. */
class FabricSpecTest {

    @Test
    void parsesHostsLinksDefaultAndSeed() {
        FabricSpec spec = FabricSpec.parse("""
                A=10.0.0.1,10.0.1.1 B=10.0.0.2,10.0.1.2; link 10.0.0.1-10.0.0.2 rate=100m delay=1ms loss=0.01
                link A-B rate=1.5gbit queue=64k   # shared by the other pairs
                link * delay=250us reorder=2% reorder-delay=3ms down
                seed 42
                """);
        assertEquals(2, spec.hosts().size());
        assertEquals(2, spec.hosts().get(1).addresses().size());
        LinkSpec path = spec.links().get(0).spec();
        assertEquals(100_000_000L, path.rateBitsPerSecond());
        assertEquals(1_000_000L, path.delayNanos());
        assertEquals(0.01, path.loss());
        assertEquals(LinkSpec.DEFAULT_QUEUE_PACKETS, path.queuePackets());
        LinkSpec hosts = spec.links().get(1).spec();
        assertEquals(1_500_000_000L, hosts.rateBitsPerSecond());
        assertEquals(65536, hosts.queueBytes());
        assertEquals(0, hosts.queuePackets());
        assertEquals(250_000L, spec.defaultLink().delayNanos());
        assertEquals(0.02, spec.defaultLink().reorder(), 1e-12);
        assertEquals(3_000_000L, spec.defaultLink().reorderDelayNanos());
        assertTrue(spec.defaultLink().down());
        assertEquals(42, spec.seed());
    }

    @Test
    void buildsARunningNetwork() {
        try (FabricNetwork net = FabricNetwork.fromSpec("spec",
                "A=10.0.0.1 B=10.0.0.2 C=fd00::3; link A-B rate=10m down; link 10.0.0.1-10.0.0.2")) {
            assertEquals(3, net.hosts().size());
            assertEquals(2, net.links().size());
            FabricLink hostLink = net.findLink("B", "A").orElseThrow();
            assertFalse(hostLink.isUp());
            assertEquals(10_000_000L, hostLink.spec().rateBitsPerSecond());
            assertTrue(net.findLink("10.0.0.2", "10.0.0.1").orElseThrow().isUp());
            assertNull(net.findLink("A", "C").orElse(null));
        }
    }

    @Test
    void linkSpecTextRoundTrips() {
        LinkSpec s = LinkSpec.parse("rate=2g burst=9000 delay=1.5ms loss=0.5% queue=100p reorder=0.1 reorder-delay=2ms");
        assertEquals(s, LinkSpec.parse(s.toString()));
        assertEquals(LinkSpec.UNLIMITED, LinkSpec.parse(""));
        assertEquals(0.005, s.loss(), 1e-12);
        assertEquals(1_500_000L, s.delayNanos());
    }

    @Test
    void errorsNameTheStatementAndTheProblem() {
        assertMessage("A=10.0.0.1; link A-B", "statement 2 'link A-B': no host named B");
        assertMessage("A=10.0.0.1 B=10.0.0.2; link A-B rate=fast", "rate: 'fast' is not a rate");
        assertMessage("A=10.0.0.1 B=10.0.0.2\nlink A-B delay=5", "delay: '5' is not a duration");
        assertMessage("A=10.0.0.1 B=10.0.0.2; link A-B loss=2", "loss: '2' is above 1");
        assertMessage("A=10.0.0.1 B=10.0.0.1", "address 10.0.0.1 is declared twice");
        assertMessage("A=10.0.0.1 A=10.0.0.2", "host A is declared twice");
        assertMessage("A=10.0.0.300", "'10.0.0.300' is not an IPv4 address");
        assertMessage("A=host.example", "'host.example' is not an IP address literal");
        assertMessage("A=10.0.0.1 B=10.0.0.2; link 10.0.0.1-10.0.0.9", "address 10.0.0.9 belongs to no host");
        assertMessage("A=10.0.0.1 B=10.0.0.2; link A-10.0.0.2", "must both be addresses or both host names");
        assertMessage("A=10.0.0.1 B=10.0.0.2; link A-B; link B-A", "B-A is linked twice");
        assertMessage("A=10.0.0.1 B=10.0.0.2; link A-B jitter=1ms", "unknown link key 'jitter'");
        assertMessage("A=10.0.0.1 B=10.0.0.2; link A-B queue=0", "queue: must be > 0");
        assertMessage("A=10.0.0.1; hello", "'hello' is neither a host");
        assertMessage("seed x", "seed 'x' is not an integer");
    }

    private static void assertMessage(String spec, String expected) {
        FabricSpecException e = assertThrows(FabricSpecException.class, () -> FabricSpec.parse(spec));
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' lacks '" + expected + "'");
    }
}
