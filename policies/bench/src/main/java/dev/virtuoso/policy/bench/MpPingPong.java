package dev.virtuoso.policy.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.RemoteMemory;

/**
 * Ping-pong over a multipath connection: MP_SEND/MP_RECV, or MP_WRITE into the peer's region and,
 * after its completion (every byte placed), an 8-byte MP_SEND as the notice. The two ends are
 * {@link Side}s, in one process ({@link #run}) or in two ({@link LatencyPeer}); the client measures,
 * the echo side answers each arrival. Each message is checked at its end (a sequence number in its
 * last 8 bytes, or the notice's 8 bytes).
 */
final class MpPingPong {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private MpPingPong() {
    }

    /** Both ends in this process; the echo side runs on its own thread; one receive posted at a time. */
    static long[] run(MultipathConnection[] c, int size, int iterations, boolean writeNotify) throws Exception {
        return run(c, size, iterations, writeNotify, 1);
    }

    /**
     * As {@link #run(MultipathConnection[], int, int, boolean)} with {@code rxDepth} receives kept
     * posted ahead on each side (perftest's {@code --rx-depth}): the advertisement of the receive a
     * message needs then travels well before it, not just ahead of the previous reply.
     */
    static long[] run(MultipathConnection[] c, int size, int iterations, boolean writeNotify, int rxDepth)
            throws Exception {
        if (rxDepth < 1) {
            throw new IllegalArgumentException("receive depth must be at least 1: " + rxDepth);
        }
        Side client = new Side(c[0], size);
        Side server = new Side(c[1], size);
        client.rxDepth = rxDepth;
        server.rxDepth = rxDepth;
        client.peerData = server.data.remote();
        server.peerData = client.data.remote();
        for (int i = 0; i < Math.min(rxDepth, total(iterations)); i++) {
            server.postRecv(writeNotify);
        }
        Thread echo = new Thread(() -> {
            try {
                server.echo(total(iterations), writeNotify);
            } catch (Exception e) {
                server.failure = e;
            }
        }, "latency-bench-echo");
        echo.setDaemon(true);
        long[] samples;
        try {
            echo.start();
            samples = client.measure(iterations, writeNotify);
            echo.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS));
        } finally {
            echo.interrupt();
        }
        if (server.failure != null) {
            throw new IllegalStateException("echo side failed", server.failure);
        }
        client.close();
        server.close();
        return samples;
    }

    /** Round trips including the warm-up (a tenth). */
    static int total(int iterations) {
        return iterations / 10 + iterations;
    }

    /** One end: a data region (send half, receive half) and a notice region. */
    static final class Side {
        final MultipathConnection c;
        final int size;
        final MemoryRegion data;
        final MemoryRegion notice;
        final ByteBuffer dataBuf;
        final ByteBuffer noticeBuf;
        final MpCompletion[] comps = {new MpCompletion(), new MpCompletion(), new MpCompletion(), new MpCompletion()};
        /** Completions seen and not yet awaited, by opcode (the peer's next message may overtake our SEND's). */
        private final int[] seen = new int[MpOpcode.values().length];
        RemoteMemory peerData;
        /** Receives kept posted ahead (1: one posted right before it is needed). */
        int rxDepth = 1;
        private long arrivals;
        private long posted;
        volatile Exception failure;

        Side(MultipathConnection c, int size) throws Exception {
            this.c = c;
            this.size = size;
            dataBuf = ByteBuffer.allocateDirect(2 * size);
            noticeBuf = ByteBuffer.allocateDirect(16);
            EnumSet<Access> all = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            data = c.register(dataBuf, all);
            notice = c.register(noticeBuf, all);
        }

        /**
         * The client's loop: keep {@code rxDepth} receives posted (never more than the answers to
         * come), send, wait for the answer.
         *
         * @return half round trips in nanoseconds, after a tenth of the iterations as warm-up
         */
        long[] measure(int iterations, boolean writeNotify) throws Exception {
            int warm = iterations / 10;
            int total = warm + iterations;
            long[] samples = new long[iterations];
            for (int i = 0; i < Math.min(rxDepth - 1, total); i++) {
                postRecv(writeNotify);
            }
            for (int i = 0; i < total; i++) {
                if (posted < total) {
                    postRecv(writeNotify); // rxDepth receives posted for the arrivals from this one on
                }
                long t0 = System.nanoTime();
                postTo(writeNotify, i);
                awaitArrival(false, writeNotify);
                long t = System.nanoTime() - t0;
                await(MpOpcode.SEND); // outside the timed span, as the raw QP's client takes its send's
                if (i >= warm) {
                    samples[i - warm] = t / 2;
                }
            }
            return samples;
        }

        /**
         * The echo side's loop, its first {@code rxDepth} receives already posted: answers {@code
         * total} arrivals, posting one more receive right after each while fewer than {@code total}
         * have been (a region is closed with no receive posted).
         */
        void echo(int total, boolean writeNotify) throws Exception {
            for (int i = 0; i < total; i++) {
                awaitArrival(posted < total, writeNotify);
                sendTo(writeNotify, i);
            }
        }

        /** Sends the message (or writes it and sends the notice); waits for the send's completion. */
        void sendTo(boolean writeNotify, long seq) throws Exception {
            postTo(writeNotify, seq);
            await(MpOpcode.SEND);
        }

        /** Posts the message (or writes it, waits for the write, and posts the notice). */
        void postTo(boolean writeNotify, long seq) throws Exception {
            if (writeNotify) {
                dataBuf.putLong(size - 8 >= 0 ? size - 8 : 0, seq);
                c.postWrite(1, data, 0, size, peerData, size);
                await(MpOpcode.WRITE);
                noticeBuf.putLong(0, seq);
                c.postSend(2, notice, 0, 8);
            } else {
                dataBuf.putLong(Math.max(0, size - 8), seq);
                c.postSend(2, data, 0, size);
            }
        }

        void postRecv(boolean writeNotify) throws Exception {
            posted++;
            if (writeNotify) {
                c.postRecv(3, notice, 8, 8);
            } else {
                c.postRecv(3, data, size, size);
            }
        }

        /**
         * Waits for the message (or notice) whose receive is posted, checks it carries the next
         * sequence number (and, after a write, that the written data does); then posts the next
         * receive if asked.
         */
        void awaitArrival(boolean repost, boolean writeNotify) throws Exception {
            await(MpOpcode.RECV);
            long expected = arrivals++;
            long got = dataBuf.getLong(size + Math.max(0, size - 8));
            if (writeNotify && noticeBuf.getLong(8) != expected || got != expected) {
                throw new IOException("arrival " + expected + " carries sequence " + got
                        + (writeNotify ? " (notice " + noticeBuf.getLong(8) + ")" : ""));
            }
            if (repost) {
                postRecv(writeNotify);
            }
        }

        /** Spins until a completion of {@code op} is there, counting the others for later. */
        private void await(MpOpcode op) throws Exception {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (seen[op.ordinal()] == 0) {
                int n = c.pollCompletions(comps);
                for (int i = 0; i < n; i++) {
                    if (!comps[i].ok()) {
                        throw new IOException("MP_" + comps[i].opcode() + " failed: " + comps[i].status());
                    }
                    seen[comps[i].opcode().ordinal()]++;
                }
                if (n == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("no " + op + " completion within 10 s");
                    }
                    Thread.yield();
                }
            }
            seen[op.ordinal()]--;
        }

        void close() {
            data.close();
            notice.close();
        }
    }
}
