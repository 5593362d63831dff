package dev.virtuoso.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class SlotRingTest {
    /** Longest a stress test may run before it counts as stalled. */
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);

    static final class Cell {
        final int index;
        long value;

        Cell(int index) {
            this.index = index;
        }
    }

    private static SlotRing<Cell> ring(int limit) {
        return new SlotRing<>(limit, Cell::new);
    }

    @Test
    void capacityIsTheNextPowerOfTwoAndSlotsArePreallocated() {
        assertEquals(2, ring(1).capacity());
        assertEquals(8, ring(5).capacity());
        assertEquals(8, ring(8).capacity());
        SlotRing<Cell> r = ring(3);
        assertEquals(3, r.limit());
        for (int i = 0; i < r.capacity(); i++) {
            assertEquals(i, r.slot(i).index);
            assertSame(r.slot(i), r.slot(i + r.capacity()), "a ticket one lap later is the same slot");
        }
        assertThrows(IllegalArgumentException.class, () -> ring(0));
        assertThrows(IllegalArgumentException.class, () -> ring((1 << 30) + 1));
    }

    @Test
    void emptyFullAndTheLimit() {
        SlotRing<Cell> r = ring(3);
        assertTrue(r.isEmpty());
        assertEquals(-1, r.acquire());
        assertEquals(-1, r.peek());
        long a = r.claim();
        long b = r.claim();
        long c = r.claim();
        assertEquals(List.of(0L, 1L, 2L), List.of(a, b, c));
        assertEquals(-1, r.claim(), "full at the limit, below the capacity of 4");
        assertEquals(3, r.size());
        assertTrue(r.isEmpty(), "claimed but unpublished slots are not visible");
        r.publish(b);
        assertEquals(-1, r.acquire(), "order is kept: slot 0 is not published yet");
        r.publish(a);
        assertEquals(0, r.acquire());
        assertEquals(1, r.acquire());
        assertEquals(-1, r.acquire());
        assertEquals(3, r.claim(), "taking slot 0 freed room under the limit");
        r.release(0);
        r.release(1);
        r.publish(c);
        r.publish(3);
        assertEquals(2, r.acquire());
        assertEquals(3, r.acquire());
        r.release(2);
        r.release(3);
        assertTrue(r.isEmpty());
        assertEquals(0, r.size());
    }

    @Test
    void aFullRingRefusesUntilTheOldestSlotIsReleased() {
        SlotRing<Cell> r = ring(2);
        long a = r.claim();
        r.publish(a);
        long b = r.claim();
        r.publish(b);
        assertEquals(-1, r.claim());
        assertEquals(a, r.acquire());
        // taken but not released: the limit has room, the slot itself does not yet
        long c = r.claim();
        assertEquals(-1, c, "slot 0 of the next lap is still being read");
        r.release(a);
        assertEquals(2, r.claim());
    }

    @Test
    void theOneConsumerPeeksAndReleasesInOrder() {
        SlotRing<Cell> r = ring(4);
        for (int i = 0; i < 3; i++) {
            long t = r.claim();
            r.slot(t).value = 100 + i;
            r.publish(t);
        }
        long t = r.peek();
        assertEquals(0, t);
        assertEquals(0, r.peek(), "peeking takes nothing");
        assertTrue(r.isPublished(1));
        assertTrue(r.isPublished(2));
        assertFalse(r.isPublished(3));
        assertEquals(102, r.slot(2).value, "a consumer may look ahead");
        r.claim();
        assertEquals(-1, r.claim(), "peeked slots count against the limit until released");
        r.release(0);
        assertEquals(1, r.peek());
        assertTrue(r.claim() >= 0);
    }

    @Test
    void wrapsAroundManyLaps() {
        SlotRing<Cell> r = ring(3);
        for (long i = 0; i < 10_000; i++) {
            long t = r.claim();
            assertEquals(i, t);
            r.slot(t).value = i * 7;
            r.publish(t);
            long u = i % 2 == 0 ? r.acquire() : r.peek();
            assertEquals(i, u);
            assertEquals(i * 7, r.slot(u).value);
            r.release(u);
        }
        assertTrue(r.isEmpty());
    }

    // ---------------------------------------------------------------- concurrent stress

    /** Values are producer << 40 | sequence; each consumer must see each producer's values in order. */
    private static long value(int producer, long seq) {
        return ((long) producer << 40) | seq;
    }

    private static Thread start(String name, Runnable r, ConcurrentLinkedQueue<Throwable> errors) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                errors.add(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void produce(SlotRing<Cell> r, int producer, long count, AtomicBoolean stop) {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        for (long i = 0; i < count && !stop.get(); i++) {
            long t;
            while ((t = r.claim()) < 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("producer " + producer + " stalled at " + i);
                }
                Thread.yield();
            }
            r.slot(t).value = value(producer, i);
            r.publish(t);
        }
    }

    /**
     * @param peeking the one consumer uses peek/release instead of acquire/release
     * @return every value seen, checked for order per producer
     */
    private static void stress(int producers, int consumers, boolean peeking, int limit, long perProducer)
            throws InterruptedException {
        SlotRing<Cell> r = ring(limit);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        long total = producers * perProducer;
        AtomicLong taken = new AtomicLong();
        long[][] countsPerConsumer = new long[consumers][producers];
        long[] sums = new long[consumers];
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            int me = c;
            threads.add(start("ring-consumer-" + c, () -> {
                long[] last = new long[producers];
                java.util.Arrays.fill(last, -1);
                long deadline = System.nanoTime() + DEADLINE_NANOS;
                while (taken.get() < total && !stop.get()) {
                    long t = peeking ? r.peek() : r.acquire();
                    if (t < 0) {
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("consumer " + me + " stalled after " + taken.get());
                        }
                        Thread.yield();
                        continue;
                    }
                    long v = r.slot(t).value;
                    r.release(t);
                    taken.incrementAndGet();
                    int p = (int) (v >>> 40);
                    long seq = v & ((1L << 40) - 1);
                    if (seq <= last[p]) {
                        throw new AssertionError("consumer " + me + " saw producer " + p + " go back: " + last[p]
                                + " then " + seq);
                    }
                    last[p] = seq;
                    countsPerConsumer[me][p]++;
                    sums[me] += seq;
                }
            }, errors));
        }
        for (int p = 0; p < producers; p++) {
            int me = p;
            threads.add(start("ring-producer-" + p, () -> produce(r, me, perProducer, stop), errors));
        }
        for (Thread t : threads) {
            t.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NANOS) + 5000);
            if (t.isAlive()) {
                stop.set(true);
                throw new AssertionError(t.getName() + " did not finish");
            }
        }
        assertNull(errors.peek(), () -> "thread failed: " + errors.peek());
        assertEquals(total, taken.get(), "every value taken once");
        long sum = 0;
        for (int p = 0; p < producers; p++) {
            long n = 0;
            for (int c = 0; c < consumers; c++) {
                n += countsPerConsumer[c][p];
            }
            assertEquals(perProducer, n, "values of producer " + p);
        }
        for (long s : sums) {
            sum += s;
        }
        assertEquals(producers * (perProducer * (perProducer - 1) / 2), sum, "no value lost or duplicated");
        assertTrue(r.isEmpty());
        assertEquals(0, r.size());
    }

    @Test
    void manyProducersOneConsumerAcquiring() throws InterruptedException {
        stress(4, 1, false, 8, 25_000);
    }

    @Test
    void manyProducersTheOneConsumerPeeking() throws InterruptedException {
        stress(4, 1, true, 5, 25_000);
    }

    @Test
    void oneProducerManyConsumers() throws InterruptedException {
        stress(1, 4, false, 16, 100_000);
    }

    @Test
    void manyProducersManyConsumersOnATinyRing() throws InterruptedException {
        stress(3, 3, false, 2, 25_000);
    }
}
