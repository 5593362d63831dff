package dev.virtuoso.commands.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

class DemoOptionsTest {

    private static DemoOptions parse(String... args) {
        return DemoOptions.from(DemoOptions.SPEC.parse(args));
    }

    @Test
    void defaultsAreFourHeterogeneousPathsAndARoundRobinToAdaptiveSwap() {
        DemoOptions o = parse();
        assertEquals(List.of(300_000_000L, 150_000_000L, 100_000_000L, 50_000_000L), o.plan().ratesBitsPerSecond());
        assertEquals("lb-roundrobin", o.before());
        assertEquals("lb-adaptive", o.after());
        assertEquals(4 << 20, o.wrBytes());
        assertEquals(192L << 20, o.writeBytes());
        assertEquals(8 * (4 << 20), o.ringBytes());
        assertTrue(o.chart());
    }

    @Test
    void pathsCycleTheDefaultRatesAndRatesSetThePathCount() {
        assertEquals(6, parse("-q", "6").plan().paths());
        assertEquals(300_000_000L, parse("-q", "6").plan().ratesBitsPerSecond().get(4));
        assertEquals(2, parse("--rates", "1g,10m").plan().paths());
        assertEquals(2, parse("--rates", "1g,10m", "-q", "2").plan().paths());
    }

    @Test
    void rejectsInconsistentOrOutOfRangeValues() {
        assertThrows(IllegalArgumentException.class, () -> parse("--rates", "1g,10m", "-q", "3"));
        assertThrows(IllegalArgumentException.class, () -> parse("-q", "0"));
        assertThrows(IllegalArgumentException.class, () -> parse("-q", "17"));
        assertThrows(IllegalArgumentException.class, () -> parse("--rates", "fast"));
        assertThrows(IllegalArgumentException.class, () -> parse("-s", "64M", "-t", "64"));
        assertThrows(IllegalArgumentException.class, () -> parse("--window", "0"));
    }

    @Test
    void fabricPlanPairsAddressesPerPathWithOwnLinks() throws Exception {
        FabricPlan p = parse("--rates", "100m,400m,200m", "--delay", "50").plan();
        assertEquals(1, p.fastestPath());
        assertEquals(700_000_000L, p.totalRate());
        assertEquals(InetAddress.getByName("192.0.2.2"), p.clientAddress(1));
        assertEquals(InetAddress.getByName("198.51.100.3"), p.serverAddress(2));
        assertEquals(2, p.pathOf(InetAddress.getByName("198.51.100.3")));
        assertEquals(-1, p.pathOf(InetAddress.getByName("127.0.0.1")));
        String spec = p.spec();
        assertTrue(spec.startsWith("A=192.0.2.1,192.0.2.2,192.0.2.3 B=198.51.100.1,198.51.100.2,198.51.100.3\n"), spec);
        assertTrue(spec.contains("link 192.0.2.2-198.51.100.2 rate=400000000 delay=50us\n"), spec);
        assertTrue(!spec.contains("link *"), "no default link: cross-path pairs must have no route");
    }
}
