package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;

/** Several application threads post mixed WRITE, READ and SEND on one connection at once. */
class ConcurrencyTest {
    private static final int WORKERS = 4;
    private static final int OPS = 24;
    private static final int SLICE = 4 << 20;
    private static final int MAX_MSG = 1 << 20;
    private static final int RECV_BUFFERS = 16;

    /** Pattern byte i of message (worker, seq). */
    private static byte pattern(int worker, int seq, int i) {
        return (byte) (worker * 31 + seq * 7 + i * 13 + (i >>> 8));
    }

    @Test
    void mixedOperationsFromSeveralThreads() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0", "rate=0", "rate=0")) {
            var o = Fabric.options().maxOutstanding(256).chunkSize(128 * 1024).splitThreshold(16 * 1024);
            Pair p = new Pair(f.connect(o, o.build().toBuilder()), WORKERS * SLICE);
            ByteBuffer recvArea = ByteBuffer.allocateDirect(RECV_BUFFERS * MAX_MSG);
            MemoryRegion recvMr = p.server.register(recvArea, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            for (int b = 0; b < RECV_BUFFERS; b++) {
                p.server.postRecv(b, recvMr, (long) b * MAX_MSG, MAX_MSG);
            }
            AtomicBoolean stop = new AtomicBoolean();
            Set<Long> received = ConcurrentHashMap.newKeySet();
            List<LinkedBlockingQueue<MpCompletion>> queues = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                queues.add(new LinkedBlockingQueue<>());
            }
            ExecutorService pool = Executors.newFixedThreadPool(WORKERS + 2);
            try {
                Future<?> receiver = pool.submit(() -> {
                    MpCompletion c = new MpCompletion();
                    while (!stop.get()) {
                        if (!p.server.awaitCompletion(c, 50, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                        assertEquals(MpOpcode.RECV, c.opcode());
                        assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
                        int b = (int) c.wrId();
                        int at = b * MAX_MSG;
                        int worker = recvArea.getInt(at);
                        int seq = recvArea.getInt(at + 4);
                        assertEquals(c.byteLength(), recvArea.getInt(at + 8));
                        for (int i = 12; i < c.byteLength(); i++) {
                            if (recvArea.get(at + i) != pattern(worker, seq, i)) {
                                throw new AssertionError("message " + worker + "/" + seq + " byte " + i);
                            }
                        }
                        assertTrue(received.add(((long) worker << 32) | seq), "delivered twice");
                        p.server.postRecv(b, recvMr, at, MAX_MSG);
                    }
                    return null;
                });
                Future<?> dispatcher = pool.submit(() -> {
                    MpCompletion[] batch = new MpCompletion[16];
                    for (int i = 0; i < batch.length; i++) {
                        batch[i] = new MpCompletion();
                    }
                    while (!stop.get()) {
                        int n = p.client.pollCompletions(batch);
                        for (int i = 0; i < n; i++) {
                            queues.get((int) (batch[i].wrId() >>> 32)).add(new MpCompletion().copyFrom(batch[i]));
                        }
                        if (n == 0) {
                            Thread.onSpinWait();
                        }
                    }
                    return null;
                });
                AtomicInteger sends = new AtomicInteger();
                List<Future<?>> workers = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    int worker = w;
                    workers.add(pool.submit(() -> {
                        Random rnd = new Random(worker);
                        int base = worker * SLICE;
                        for (int k = 0; k < OPS; k++) {
                            int len = 12 + rnd.nextInt(rnd.nextBoolean() ? 4096 : MAX_MSG - 12);
                            long wrId = ((long) worker << 32) | k;
                            MpOpcode op = MpOpcode.values()[rnd.nextInt(3)];
                            ByteBuffer src = op == MpOpcode.READ ? p.serverBuf : p.clientBuf;
                            for (int i = 12; i < len; i++) {
                                src.put(base + i, pattern(worker, k, i));
                            }
                            src.putInt(base, worker).putInt(base + 4, k).putInt(base + 8, len);
                            switch (op) {
                                case WRITE -> p.client.postWrite(wrId, p.clientMr, base, len, p.serverMr.remote(), base);
                                case READ -> p.client.postRead(wrId, p.clientMr, base, len, p.serverMr.remote(), base);
                                default -> {
                                    p.client.postSend(wrId, p.clientMr, base, len);
                                    sends.incrementAndGet();
                                }
                            }
                            MpCompletion c = queues.get(worker).poll(60, TimeUnit.SECONDS);
                            assertTrue(c != null, "no completion for " + wrId);
                            assertEquals(wrId, c.wrId());
                            assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
                            assertEquals(op, c.opcode());
                            if (op != MpOpcode.SEND) {
                                Pair.assertSame(p.clientBuf, base, p.serverBuf, base, len);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> w : workers) {
                    w.get(120, TimeUnit.SECONDS);
                }
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (received.size() < sends.get() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertEquals(sends.get(), received.size(), "every MP_SEND received once");
                stop.set(true);
                receiver.get(10, TimeUnit.SECONDS);
                dispatcher.get(10, TimeUnit.SECONDS);
            } finally {
                stop.set(true);
                pool.shutdownNow();
            }
        }
    }

    @Test
    void concurrentPollersSeeEachCompletionOnce() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            var o = Fabric.options().maxOutstanding(128);
            Pair p = new Pair(f.connect(o, Fabric.options()), 1 << 20);
            int total = 2000;
            Set<Long> seen = ConcurrentHashMap.newKeySet();
            AtomicInteger duplicates = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<?>> pollers = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    pollers.add(pool.submit(() -> {
                        MpCompletion[] out = {new MpCompletion(), new MpCompletion(), new MpCompletion()};
                        long deadline = System.nanoTime() + 60_000_000_000L;
                        while (seen.size() < total && System.nanoTime() < deadline) {
                            int n = p.client.pollCompletions(out);
                            for (int i = 0; i < n; i++) {
                                assertEquals(MpStatus.SUCCESS, out[i].status());
                                if (!seen.add(out[i].wrId())) {
                                    duplicates.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (int i = 0; i < total; i++) {
                    while (true) {
                        try {
                            p.client.postWrite(i, p.clientMr, i % 1000, 64, p.serverMr.remote(), 0);
                            break;
                        } catch (dev.virtuoso.api.VirtuosoException e) {
                            assertEquals(dev.virtuoso.api.VirtuosoException.Reason.QUEUE_FULL, e.reason());
                            Thread.onSpinWait();
                        }
                    }
                }
                for (Future<?> q : pollers) {
                    q.get(90, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(total, seen.size());
            assertEquals(0, duplicates.get());
        }
    }
}
