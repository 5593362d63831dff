package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * What a failed bench control message adds about the device: its drop, NAK and retransmission
 * counters that are not zero (how rxe's UDP source ports, dropped by a soft RNIC that checks them,
 * showed in scenario ibv-bench), never the traffic counters; nothing when all are zero.
 */
class BenchDeviceProblemsTest {

    @Test
    void nonZeroProblemCountersAreListedTrafficIsNot() {
        Map<VerbsCounter, Long> c = new EnumMap<>(VerbsCounter.class);
        c.put(VerbsCounter.TX_PACKETS, 900L);
        c.put(VerbsCounter.RX_BYTES, 12_000L);
        c.put(VerbsCounter.DROP_BAD_SOURCE, 262L);
        c.put(VerbsCounter.RETRANSMITTED_PACKETS, 7L);
        c.put(VerbsCounter.NAK_SEQ_SENT, 0L);
        assertEquals("; device bench (all its QPs): RETRANSMITTED_PACKETS=7 DROP_BAD_SOURCE=262",
                BenchEndpoint.deviceProblems(provider(c, "bench"), "bench"));
    }

    @Test
    void nothingWhenNoProblemCounterMovedOrTheDeviceIsUnknown() {
        Map<VerbsCounter, Long> c = new EnumMap<>(VerbsCounter.class);
        c.put(VerbsCounter.TX_PACKETS, 900L);
        c.put(VerbsCounter.DROP_MALFORMED, 0L);
        assertEquals("", BenchEndpoint.deviceProblems(provider(c, "bench"), "bench"));
        assertEquals("", BenchEndpoint.deviceProblems(null, "bench"));
        assertEquals("", BenchEndpoint.deviceProblems(provider(c, "bench"), null));
        String e = BenchEndpoint.deviceProblems(provider(c, "bench"), "mlx5_0");
        assertTrue(e.startsWith("; device mlx5_0 counters unreadable: no device mlx5_0"), e);
    }

    /** A provider with one device whose counters are {@code snapshot} (only what the method calls works). */
    private static VerbsProvider provider(Map<VerbsCounter, Long> snapshot, String device) {
        VerbsCounters counters = new VerbsCounters() {
            @Override
            public long get(VerbsCounter counter) {
                return snapshot.getOrDefault(counter, -1L);
            }

            @Override
            public Map<VerbsCounter, Long> snapshot() {
                return snapshot;
            }
        };
        IbvContext ctx = (IbvContext) Proxy.newProxyInstance(IbvContext.class.getClassLoader(),
                new Class<?>[] {IbvContext.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "counters" -> counters;
                    case "close" -> null;
                    case "deviceName" -> device;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        return (VerbsProvider) Proxy.newProxyInstance(VerbsProvider.class.getClassLoader(),
                new Class<?>[] {VerbsProvider.class}, (proxy, m, args) -> {
                    if (m.getName().equals("openDevice")) {
                        if (!device.equals(args[0])) {
                            throw new VerbsException(VerbsException.ENODEV, "no device " + args[0]);
                        }
                        return ctx;
                    }
                    if (m.getName().equals("devices")) {
                        return List.of();
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }
}
