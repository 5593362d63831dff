package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.VerbsProvider;

/** {@link SharedCapacities}: keys, newest measurement wins, forgetting, the bound, concurrent use. */
class SharedCapacitiesTest {
    private static VerbsProvider provider() {
        return (VerbsProvider) Proxy.newProxyInstance(VerbsProvider.class.getClassLoader(),
                new Class<?>[] {VerbsProvider.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    private static InetAddress ip(String s) throws Exception {
        return InetAddress.getByName(s);
    }

    private final VerbsProvider soft = provider();
    private final SharedCapacities c = new SharedCapacities();

    private SharedCapacities.PathPair pair(String local, String remote) throws Exception {
        return new SharedCapacities.PathPair(soft, "a", ip(local), ip(remote), 4096);
    }

    @Test
    void aPathPairIsProviderDeviceBothVnicsAndMtuInOneDirection() throws Exception {
        SharedCapacities.PathPair p = pair("10.0.1.1", "10.0.2.1");
        c.record(p, 1e8, 10);
        assertEquals(new SharedCapacities.Measurement(1e8, 10), c.find(pair("10.0.1.1", "10.0.2.1")), "an equal key");
        assertNull(c.find(pair("10.0.2.1", "10.0.1.1")), "the other direction");
        assertNull(c.find(pair("10.0.1.1", "10.0.2.2")), "another remote vNIC");
        assertNull(c.find(pair("10.0.1.2", "10.0.2.1")), "another local vNIC");
        assertNull(c.find(new SharedCapacities.PathPair(soft, "b", ip("10.0.1.1"), ip("10.0.2.1"), 4096)), "device");
        assertNull(c.find(new SharedCapacities.PathPair(soft, "a", ip("10.0.1.1"), ip("10.0.2.1"), 1024)), "MTU");
        assertNull(c.find(new SharedCapacities.PathPair(provider(), "a", ip("10.0.1.1"), ip("10.0.2.1"), 4096)),
                "another provider instance");
        assertNotEquals(p, new SharedCapacities.PathPair(provider(), "a", ip("10.0.1.1"), ip("10.0.2.1"), 4096));
        assertThrows(NullPointerException.class, () -> new SharedCapacities.PathPair(null, "a", ip("10.0.1.1"),
                ip("10.0.2.1"), 0));
    }

    @Test
    void aNewerMeasurementReplacesAnOlderOneNeverTheReverse() throws Exception {
        SharedCapacities.PathPair p = pair("10.0.1.1", "10.0.2.1");
        c.record(p, 1e8, 100);
        c.record(p, 2e8, 200);
        assertEquals(new SharedCapacities.Measurement(2e8, 200), c.find(p));
        c.record(p, 3e8, 150);
        assertEquals(new SharedCapacities.Measurement(2e8, 200), c.find(p), "measured before the entry: dropped");
        c.record(p, 4e8, 200);
        assertEquals(new SharedCapacities.Measurement(4e8, 200), c.find(p), "same time: the later report");
        // nanoTime may be negative and wrap: compared by difference
        c.record(p, 5e8, Long.MAX_VALUE);
        c.record(p, 6e8, Long.MAX_VALUE + 10);
        assertEquals(6e8, c.find(p).bytesPerSecond());
        for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            c.record(p, bad, Long.MAX_VALUE + 20);
        }
        assertEquals(6e8, c.find(p).bytesPerSecond(), "no capacity, no entry");
    }

    @Test
    void aProviderGoneAndCloseForgetTheirEntries() throws Exception {
        VerbsProvider other = provider();
        c.record(pair("10.0.1.1", "10.0.2.1"), 1e8, 1);
        c.record(new SharedCapacities.PathPair(other, "a", ip("10.0.1.1"), ip("10.0.2.1"), 4096), 1e8, 1);
        c.forget(soft);
        assertNull(c.find(pair("10.0.1.1", "10.0.2.1")));
        assertEquals(1, c.size());
        c.clear();
        assertEquals(0, c.size());
    }

    @Test
    void beyondTheBoundTheOldestEntriesGo() throws Exception {
        for (int i = 0; i < SharedCapacities.MAX_ENTRIES + 3; i++) {
            c.record(pair("10.0.1.1", "10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255)), 1e8, i);
        }
        assertEquals(SharedCapacities.MAX_ENTRIES, c.size());
        for (int i = 0; i < 3; i++) {
            assertNull(c.find(pair("10.0.1.1", "10.0.0." + i)), "oldest " + i);
        }
        assertEquals(1e8, c.find(pair("10.0.1.1", "10.0.0.3")).bytesPerSecond());
    }

    @Test
    void concurrentRecordsKeepTheNewestPerPairAndFindsSeeWholeMeasurements() throws Exception {
        int threads = 4;
        int rounds = 20_000;
        List<SharedCapacities.PathPair> pairs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            pairs.add(pair("10.0.1." + (i + 1), "10.0.2." + (i + 1)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1, r -> new Thread(r, "shared-capacities-test"));
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                writers.add(pool.submit(() -> {
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                        // the capacity encodes the time: a torn pair would not match
                        long at = (long) r * threads + thread;
                        c.record(pairs.get(r % pairs.size()), at + 1, at);
                    }
                    return null;
                }));
            }
            AtomicBoolean written = new AtomicBoolean();
            Future<Integer> reader = pool.submit(() -> {
                start.await();
                int seen = 0;
                // while the writers run, then one pass more (every pair is recorded by then)
                for (int r = 0, last = -1; last < 0 || r < last; r++) {
                    if (last < 0 && written.get()) {
                        last = r + pairs.size();
                    }
                    SharedCapacities.Measurement m = c.find(pairs.get(r % pairs.size()));
                    if (m != null) {
                        assertEquals(m.measuredAtNanos() + 1, m.bytesPerSecond(), 0);
                        seen++;
                    }
                }
                return seen;
            });
            start.countDown();
            for (Future<?> w : writers) {
                w.get(60, TimeUnit.SECONDS);
            }
            written.set(true);
            int seen = reader.get(60, TimeUnit.SECONDS);
            assertTrue(seen >= pairs.size(), "the reader checked " + seen + " measurements");
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
        assertEquals(pairs.size(), c.size());
        for (int i = 0; i < pairs.size(); i++) {
            // the newest time written for pair i: the largest r = i mod 8, from the last thread
            long newest = -1;
            for (int r = 0; r < rounds; r++) {
                if (r % pairs.size() == i) {
                    newest = Math.max(newest, (long) r * threads + threads - 1);
                }
            }
            assertEquals(new SharedCapacities.Measurement(newest + 1, newest), c.find(pairs.get(i)), "pair " + i);
        }
    }
}
