package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.api.VirtuosoException;

/**
 * The latency test's loops, as perftest's {@code ib_send_lat}: the client posts its receive,
 * sends one message and busy-polls for the answer, the server answers every message with one of
 * the same length. The WRITE test is the API's "write, then tell": an MP_WRITE into the peer's
 * region and, once it completed (every byte placed), a 16-byte MP_SEND notice (message number,
 * length) from the control buffer; the server answers by writing the same bytes back into the
 * second half of the client's region and telling it the same way. Both poll their completions
 * without blocking (a wake-up would be measured too), yielding between empty polls. Each side's
 * data region has two halves of the largest size: the client sends from the first and receives
 * into the second; the server receives into one half and sends it back from there while the next
 * message goes into the other, so a receive never lands in a buffer being sent. The client numbers
 * its messages (first 8 bytes, from 8 bytes on) and checks every answer's number and length. Each
 * side keeps {@code rxDepth} receives posted ahead (perftest's {@code --rx-depth}), never more than
 * the messages still to come: with 1 each is posted right before its message, so its advertisement
 * travels with that message; with more, the advertisements wait until the peer runs short (the
 * reassembler's rule), as in request-response traffic that keeps receives posted.
 */
final class LatencyPingPong {
    /** Sends allowed outstanding before the client waits for their completions (outside the clock). */
    private static final int MAX_SENDS_BEHIND = 8;
    /** wr_id of the messages this class sends (other send completions, e.g. READY's, are not counted). */
    private static final long SEND_ID = -1;
    private static final long WRITE_ID = -2;
    /** A WRITE test's notice: message number and length. */
    static final int NOTICE_BYTES = 16;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(BenchEndpoint.COMPLETION_TIMEOUT_SECONDS);

    private final MultipathConnection c;
    private final MemoryRegion data;
    private final ByteBuffer buffer;
    /** Bytes in each half of the data region: the largest size. */
    private final int half;
    private final MpCompletion[] comps = new MpCompletion[16];
    /** The WRITE test's notices go from the control buffer's outgoing half and into its incoming half. */
    private final MemoryRegion control;
    private final ByteBuffer controlBuffer;
    /** The peer's data region (WRITE test), or null. */
    private final RemoteMemory peer;
    /** Receives kept posted ahead, at least 1. */
    private final int rxDepth;
    private long sendsOutstanding;
    /** Server: receives posted so far (receive k lands in half k % 2). */
    private long serverPosted;

    /**
     * @param e the connected endpoint, its data region attached
     * @param half bytes in each half of the data region
     * @param rxDepth receives kept posted ahead
     * @param peer the other side's data region for the WRITE test, {@code null} for the SEND test
     */
    LatencyPingPong(BenchEndpoint e, int half, int rxDepth, RemoteMemory peer) {
        if (rxDepth < 1) {
            throw new IllegalArgumentException("receive depth must be at least 1: " + rxDepth);
        }
        this.c = e.connection;
        this.data = e.data;
        this.buffer = e.dataBuffer;
        this.half = half;
        this.rxDepth = rxDepth;
        this.control = e.control;
        this.controlBuffer = e.controlBuffer;
        this.peer = peer;
        for (int i = 0; i < comps.length; i++) {
            comps[i] = new MpCompletion();
        }
    }

    /**
     * Client: {@code n} round trips of {@code size} bytes (SEND test: a message each way; WRITE
     * test: a write and a notice each way).
     *
     * @return half of each round trip, in nanoseconds
     */
    long[] measure(int size, int n) throws IOException, InterruptedException {
        boolean write = peer != null;
        long[] halfRoundTrips = new long[n];
        int posted = 0;
        while (posted < Math.min(rxDepth - 1, n)) {
            postReceive(posted++, half, size);
        }
        for (int i = 0; i < n; i++) {
            if (posted < n) {
                postReceive(posted++, half, size); // rxDepth posted for the answers from this one on
            }
            if (size >= Long.BYTES) {
                buffer.putLong(0, i);
            }
            long start = System.nanoTime();
            if (write) {
                writeAndTell(i, size, 0);
            } else {
                post(data, 0, size);
            }
            MpCompletion answer = await(MpOpcode.RECV, "an answer");
            long end = System.nanoTime();
            halfRoundTrips[i] = (end - start) / 2;
            if (write) {
                long number = controlBuffer.getLong(BenchEndpoint.RECV_HALF);
                long length = controlBuffer.getLong(BenchEndpoint.RECV_HALF + Long.BYTES);
                if (answer.byteLength() != NOTICE_BYTES || number != i || length != size) {
                    throw new IOException("answer " + i + ": notice of " + answer.byteLength() + " bytes for message "
                            + number + " of " + length + " bytes");
                }
            } else if (answer.byteLength() != size) {
                throw new IOException("answer " + i + " has " + answer.byteLength() + " bytes, " + size + " sent");
            }
            if (size >= Long.BYTES && buffer.getLong(half) != i) {
                throw new IOException("answer " + i + (write ? " wrote" : " carries") + " message number "
                        + buffer.getLong(half));
            }
            while (sendsOutstanding > MAX_SENDS_BEHIND) {
                awaitSendsBelow(MAX_SENDS_BEHIND);
            }
        }
        awaitSendsBelow(1);
        return halfRoundTrips;
    }

    /** A notice's receive (WRITE test), else a message's of {@code capacity} bytes at {@code offset} of the data region. */
    private void postReceive(long wrId, long offset, int capacity) throws VirtuosoException {
        if (peer != null) {
            c.postRecv(wrId, control, BenchEndpoint.RECV_HALF, NOTICE_BYTES);
        } else {
            c.postRecv(wrId, data, offset, capacity);
        }
    }

    /**
     * Server: answers {@code total} messages, each with one of the same length (WRITE test: writes
     * the bytes the client wrote back into the second half of its region and tells it). The first
     * receives must be posted ({@link #postFirstReceives}) before the client may send.
     */
    void answer(long total) throws IOException, InterruptedException {
        boolean write = peer != null;
        for (long m = 0; m < total; m++) {
            MpCompletion got = await(MpOpcode.RECV, "a message");
            long number = 0;
            int length = (int) got.byteLength();
            if (write) {
                number = controlBuffer.getLong(BenchEndpoint.RECV_HALF);
                long written = controlBuffer.getLong(BenchEndpoint.RECV_HALF + Long.BYTES);
                if (got.byteLength() != NOTICE_BYTES || written < 1 || written > half) {
                    throw new IOException("notice of " + got.byteLength() + " bytes for " + written + " bytes written");
                }
                length = (int) written;
            }
            if (serverPosted < total) {
                postServerReceive(); // rxDepth posted for the messages from the next one on
            }
            if (write) {
                writeAndTell(number, length, half);
            } else {
                post(data, (m % 2) * half, length); // back from the half message m landed in
            }
        }
        awaitSendsBelow(1);
    }

    /** Server: posts the first receives (notices' in the WRITE test) for {@code total} messages, before its READY. */
    void postFirstReceives(long total) throws VirtuosoException {
        while (serverPosted < Math.min(rxDepth, total)) {
            postServerReceive();
        }
    }

    /** Server: the next receive; message k lands in half {@code k % 2} of the data region. */
    private void postServerReceive() throws VirtuosoException {
        long k = serverPosted++;
        postReceive(k, (k % 2) * half, half);
    }

    /** MP_WRITE of the first {@code length} bytes to the peer at {@code peerOffset}, then the notice. */
    private void writeAndTell(long number, int length, long peerOffset) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true) {
            try {
                c.postWrite(WRITE_ID, data, 0, length, peer, peerOffset);
                break;
            } catch (VirtuosoException e) {
                queueFull(e, deadline);
            }
        }
        await(MpOpcode.WRITE, "the MP_WRITE's completion");
        controlBuffer.putLong(BenchEndpoint.SEND_HALF, number).putLong(BenchEndpoint.SEND_HALF + Long.BYTES, length);
        post(control, BenchEndpoint.SEND_HALF, NOTICE_BYTES);
    }

    private void post(MemoryRegion from, long offset, int length) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true) {
            try {
                c.postSend(SEND_ID, from, offset, length);
                sendsOutstanding++;
                return;
            } catch (VirtuosoException e) {
                queueFull(e, deadline);
            }
        }
    }

    /** A refused post: rethrown unless the queue was full and the deadline not past; else waits for a send completion. */
    private void queueFull(VirtuosoException e, long deadline) throws IOException, InterruptedException {
        if (e.reason() != VirtuosoException.Reason.QUEUE_FULL || System.nanoTime() - deadline > 0) {
            throw e;
        }
        awaitSendsBelow(sendsOutstanding); // one send completion frees the queue
    }

    /**
     * Spins until a completion of {@code wanted} (a receive, or the MP_WRITE) comes; send
     * completions met on the way are counted, any other is an error.
     */
    private MpCompletion await(MpOpcode wanted, String what) throws IOException, InterruptedException {
        long deadline = 0;
        for (int spins = 0;; spins++) {
            int k = c.pollCompletions(comps);
            MpCompletion found = null;
            for (int j = 0; j < k; j++) {
                MpCompletion x = check(comps[j]);
                if (x.opcode() == wanted) {
                    found = x;
                } else if (x.opcode() == MpOpcode.SEND) {
                    sent(x);
                } else {
                    throw new IOException("unexpected " + x.opcode() + " completion while waiting for " + what);
                }
            }
            if (found != null) {
                return found;
            }
            if (k == 0) {
                deadline = idle(spins, deadline, what);
            }
        }
    }

    private void awaitSendsBelow(long limit) throws IOException, InterruptedException {
        long deadline = 0;
        for (int spins = 0; sendsOutstanding >= limit; spins++) {
            int k = c.pollCompletions(comps);
            for (int j = 0; j < k; j++) {
                if (check(comps[j]).opcode() != MpOpcode.SEND) {
                    throw new IOException("unexpected " + comps[j].opcode() + " completion");
                }
                sent(comps[j]);
            }
            if (k == 0) {
                deadline = idle(spins, deadline, "a send completion");
            }
        }
    }

    /**
     * An empty poll: yield (the engine's and a soft RNIC's threads need a core where there are
     * few; where there are enough, nobody else wants this one and the yield returns at once), and
     * every 1024 polls look at the clock and the connection.
     */
    private long idle(int spins, long deadline, String what) throws IOException, InterruptedException {
        Thread.yield();
        if ((spins & 1023) != 0) {
            return deadline;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long now = System.nanoTime();
        if (deadline == 0) {
            return now + TIMEOUT_NANOS;
        }
        if (c.state() != ConnectionState.ESTABLISHED) {
            throw new IOException("the connection ended (" + c.state() + ") while waiting for " + what);
        }
        if (now - deadline > 0) {
            throw new IOException("no " + what + " within " + BenchEndpoint.COMPLETION_TIMEOUT_SECONDS + " s");
        }
        return deadline;
    }

    private void sent(MpCompletion x) {
        if (x.wrId() == SEND_ID) {
            sendsOutstanding--;
        }
    }

    private MpCompletion check(MpCompletion x) throws IOException {
        if (!x.ok()) {
            throw new IOException("MP_" + x.opcode() + " failed: " + x.status()
                    + (x.detail() != null ? " (" + x.detail() + ")" : "") + "; " + BenchClient.pathSummary(c.pathStats()));
        }
        return x;
    }
}
