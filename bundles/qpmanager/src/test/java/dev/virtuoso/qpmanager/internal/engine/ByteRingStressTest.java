package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * {@link ByteRing} with its producer and consumer on two threads, as the control channel uses it:
 * a byte stream through a small ring wraps around thousands of times, fills and empties, and
 * arrives whole and in order (the byte ring is the one ring that is not a {@code SlotRing}: it
 * moves a byte stream between a socket and the engine through contiguous views).
 */
class ByteRingStressTest {
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int TOTAL = 2_000_000;

    private static byte at(long i) {
        return (byte) (i * 31 + (i >>> 8));
    }

    @Test
    void aStreamCrossesThreadsWholeAndInOrder() throws InterruptedException {
        ByteRing ring = new ByteRing(64);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                ByteBuffer src = ByteBuffer.allocate(23);
                long next = 0;
                long deadline = System.nanoTime() + DEADLINE_NANOS;
                boolean viaView = false;
                while (next < TOTAL) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("producer stalled at " + next);
                    }
                    viaView = !viaView;
                    if (viaView) {
                        // the socket-read path: fill the contiguous free region, then commit
                        ByteBuffer w = ring.writable();
                        int n = (int) Math.min(w.remaining(), TOTAL - next);
                        for (int k = 0; k < n; k++) {
                            w.put(w.position() + k, at(next + k));
                        }
                        ring.commitWrite(n);
                        next += n;
                    } else {
                        int n = (int) Math.min(1 + (next % 23), TOTAL - next);
                        src.clear().limit(n);
                        for (int k = 0; k < n; k++) {
                            src.put(k, at(next + k));
                        }
                        if (ring.write(src)) {
                            next += n;
                        } else {
                            Thread.yield(); // full
                        }
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }, "byte-ring-producer");
        producer.setDaemon(true);
        producer.start();

        long read = 0;
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        ByteBuffer peekInto = ByteBuffer.allocate(8);
        boolean viaPeek = false;
        while (read < TOTAL && failure.get() == null) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("consumer stalled at " + read);
            }
            int readable = ring.readable();
            if (readable == 0) {
                Thread.yield(); // empty
                continue;
            }
            viaPeek = !viaPeek;
            if (viaPeek) {
                // the frame-parsing path: copy a few bytes out across the wrap, then consume them
                int n = Math.min(readable, 8);
                peekInto.clear();
                ring.peek(0, peekInto, n);
                for (int k = 0; k < n; k++) {
                    assertEquals(at(read + k), peekInto.get(k), "byte " + (read + k));
                }
                ring.commitRead(n);
                read += n;
            } else {
                // the socket-write path: the contiguous readable view
                ByteBuffer v = ring.readableView();
                int n = v.remaining();
                for (int k = 0; k < n; k++) {
                    assertEquals(at(read + k), v.get(v.position() + k), "byte " + (read + k));
                }
                ring.commitRead(n);
                read += n;
            }
        }
        producer.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NANOS));
        assertFalse(producer.isAlive(), "producer finished");
        assertNull(failure.get(), () -> "producer failed: " + failure.get());
        assertEquals(TOTAL, read);
        assertEquals(0, ring.readable());
        assertEquals(64, ring.free());
    }
}
