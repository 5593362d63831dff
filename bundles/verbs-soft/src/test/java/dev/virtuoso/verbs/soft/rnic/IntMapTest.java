package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/** The int-keyed map behind QP and MR lookups: one writer, lock-free readers. */
class IntMapTest {

    @Test
    void putGetReplaceRemove() {
        IntMap<String> m = new IntMap<>();
        assertNull(m.get(0));
        assertFalse(m.containsKey(7));
        assertNull(m.remove(7), "removing a missing key");
        assertThrows(IllegalArgumentException.class, () -> m.put(1, null));
        m.put(5, "five");
        m.put(-5, "minus five");
        assertEquals("five", m.get(5));
        assertEquals("minus five", m.get(-5));
        m.put(5, "FIVE");
        assertEquals(2, m.size(), "replacing keeps the size");
        assertEquals("FIVE", m.get(5));
        assertEquals("FIVE", m.remove(5));
        assertNull(m.get(5));
        assertNull(m.remove(5), "already removed");
        assertEquals(1, m.size());
        assertEquals("minus five", m.get(-5));
        m.put(5, "again");
        assertEquals("again", m.get(5));
    }

    /** Colliding keys (multiples of the table size), negative ones, and churn that leaves tombstones. */
    @Test
    void agreesWithAHashMapUnderChurn() {
        IntMap<Integer> m = new IntMap<>();
        Map<Integer, Integer> ref = new HashMap<>();
        Random r = new Random(42);
        for (int step = 0; step < 200_000; step++) {
            int key = r.nextBoolean() ? r.nextInt(64) * 1024 : r.nextInt(2000) - 1000;
            if (r.nextInt(3) == 0) {
                assertEquals(ref.remove(key), m.remove(key), "remove " + key);
            } else {
                m.put(key, step);
                ref.put(key, step);
            }
            if (step % 997 == 0) {
                for (Map.Entry<Integer, Integer> e : ref.entrySet()) {
                    assertEquals(e.getValue(), m.get(e.getKey()), "key " + e.getKey());
                }
                assertEquals(ref.size(), m.size());
                int live = 0;
                for (int i = 0; i < m.slots(); i++) {
                    live += m.valueAt(i) == null ? 0 : 1;
                }
                assertEquals(ref.size(), live, "valueAt sees exactly the live entries");
                assertTrue(m.slots() <= Math.max(8, 4 * (ref.size() + 1)) * 2, "shrinks after removals: "
                        + m.slots() + " slots for " + ref.size());
            }
        }
        assertNull(m.valueAt(-1));
        assertNull(m.valueAt(m.slots()));
    }

    /**
     * Readers on other threads while one writer adds and removes many keys (rebuilds and
     * tombstones): a key never removed is always found with its value, and a churned key is either
     * absent or mapped to a value made for that key, never another key's.
     */
    @Test
    void readersNeverSeeAnotherKeysValueWhileTheWriterChurns() throws Exception {
        IntMap<long[]> m = new IntMap<>();
        int stable = 64;
        for (int k = 0; k < stable; k++) {
            m.put(k * 7919, new long[] {k * 7919});
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> failure = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        long[] lookups = new long[2];
        for (int t = 0; t < 2; t++) {
            int id = t;
            Thread reader = new Thread(() -> {
                Random r = new Random(id);
                long n = 0;
                while (!stop.get() && failure.get() == null) {
                    int k = r.nextInt(stable) * 7919;
                    long[] v = m.get(k);
                    if (v == null || v[0] != k) {
                        failure.compareAndSet(null, "stable key " + k + " read " + (v == null ? "null" : v[0]));
                    }
                    int churned = 1_000_000 + r.nextInt(4096);
                    long[] c = m.get(churned);
                    if (c != null && c[0] != churned) {
                        failure.compareAndSet(null, "churned key " + churned + " read the value of " + c[0]);
                    }
                    n++;
                }
                lookups[id] = n;
            }, "intmap-reader-" + t);
            reader.start();
            readers.add(reader);
        }
        Random r = new Random(7);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (System.nanoTime() < deadline && failure.get() == null) {
            int k = 1_000_000 + r.nextInt(4096);
            if (r.nextBoolean()) {
                m.put(k, new long[] {k});
            } else {
                m.remove(k);
            }
        }
        stop.set(true);
        for (Thread reader : readers) {
            reader.join(10_000);
            assertFalse(reader.isAlive(), reader.getName() + " did not stop");
        }
        assertNull(failure.get());
        assertTrue(lookups[0] > 0 && lookups[1] > 0, "both readers ran");
    }
}
