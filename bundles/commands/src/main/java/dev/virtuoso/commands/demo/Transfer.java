package dev.virtuoso.commands.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.commands.cli.CommandError;

/**
 * Moves a number of bytes from a client connection to its server peer as a stream of MP work
 * requests (MP_WRITE into the server's region, or MP_SEND into its posted MP_RECV buffers), a
 * window of them outstanding over a ring of slots, and checks every byte of every request when it
 * completes. Runs on the caller's thread; one use per instance.
 */
public final class Transfer {

    /** Which MP verb carries the data. */
    public enum Op { WRITE, SEND }

    /** No completion for this long fails the phase. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * One side: its connection, its registered ring and the buffer behind it.
     *
     * @param connection the connection
     * @param region the registered ring
     * @param buffer the ring's buffer (the same memory)
     */
    public record Side(MultipathConnection connection, MemoryRegion region, ByteBuffer buffer) {
    }

    /**
     * What a phase measured.
     *
     * @param bytes bytes moved and verified
     * @param nanos time from the first post to the last verification
     * @param midBytes bytes verified when the midpoint action ran (0 if none)
     * @param midNanos time of the midpoint action since the start (0 if none)
     * @param settledBytes bytes verified when the last request posted before the midpoint action
     *     was verified: what follows was posted after it (0 if none)
     * @param settledNanos when that happened, since the start (0 if none)
     */
    public record Result(long bytes, long nanos, long midBytes, long midNanos, long settledBytes, long settledNanos) {
    }

    private final Op op;
    private final Side client;
    private final Side server;
    private final int wrBytes;
    private final int slots;
    private final int window;
    private final long totalBytes;
    private final long seedBase;
    private final PhaseProgress progress;
    private final boolean[] sendDone;
    private final boolean[] recvDone;
    private final boolean[] busy;
    private final int[] lengths;
    private final long[] requestOf;
    private final MpCompletion[] completions = new MpCompletion[16];
    private final MpCompletion one = new MpCompletion();

    /**
     * @param op the verb
     * @param client the sending side
     * @param server the receiving side
     * @param wrBytes bytes per work request (a slot of both rings)
     * @param window work requests outstanding at most
     * @param totalBytes bytes to move
     * @param seedBase pattern seed of the first request (request i uses seedBase + i)
     * @param progress where verified bytes are counted
     */
    public Transfer(Op op, Side client, Side server, int wrBytes, int window, long totalBytes, long seedBase,
            PhaseProgress progress) {
        this.op = op;
        this.client = client;
        this.server = server;
        this.wrBytes = wrBytes;
        this.slots = Math.min(client.region().length(), server.region().length()) / wrBytes;
        if (slots < 1) {
            throw new CommandError("rings smaller than one work request");
        }
        this.window = Math.max(1, Math.min(window, slots));
        this.totalBytes = totalBytes;
        this.seedBase = seedBase;
        this.progress = progress;
        this.sendDone = new boolean[slots];
        this.recvDone = new boolean[slots];
        this.busy = new boolean[slots];
        this.lengths = new int[slots];
        this.requestOf = new long[slots];
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new MpCompletion();
        }
    }

    /**
     * Runs the transfer.
     *
     * @param midpoint run once when half the bytes are verified (e.g. a policy swap), or null
     * @return what was measured
     * @throws IOException if a request fails, a byte differs, or nothing completes for 30 s
     * @throws InterruptedException if interrupted
     */
    public Result run(MidpointAction midpoint) throws IOException, InterruptedException {
        long requests = (totalBytes + wrBytes - 1) / wrBytes;
        long posted = 0;
        long verified = 0;
        int outstanding = 0;
        long midBytes = 0;
        long midNanos = 0;
        long mark = -1;
        long belowMark = 0;
        long settledBytes = 0;
        long settledNanos = 0;
        long start = System.nanoTime();
        long lastProgress = start;
        while (verified < totalBytes) {
            while (posted < requests && outstanding < window && !busy[(int) (posted % slots)]) {
                if (!post(posted)) {
                    break;
                }
                posted++;
                outstanding++;
            }
            int done = drain(server, true) + drain(client, false);
            if (done == 0 && client.connection().awaitCompletion(one, 2, TimeUnit.MILLISECONDS)) {
                done += handle(one, false);
            }
            for (int s = 0; s < slots; s++) {
                if (busy[s] && (op == Op.WRITE ? sendDone[s] : sendDone[s] && recvDone[s])) {
                    busy[s] = false;
                    sendDone[s] = false;
                    recvDone[s] = false;
                    outstanding--;
                    verified += lengthOf(s);
                    progress.add(lengthOf(s));
                    if (mark >= 0 && requestOf[s] < mark && ++belowMark == mark) {
                        settledBytes = verified;
                        settledNanos = System.nanoTime() - start;
                    }
                }
            }
            long now = System.nanoTime();
            if (done > 0) {
                lastProgress = now;
            } else if (now - lastProgress > STALL_NANOS) {
                throw new IOException(op + ": no completion for 30 s (" + verified + " of " + totalBytes
                        + " bytes done); paths: " + client.connection().pathStats());
            }
            if (midpoint != null && midNanos == 0 && verified * 2 >= totalBytes) {
                midBytes = verified;
                midNanos = Math.max(1, now - start);
                midpoint.run();
                mark = posted;
                belowMark = posted - outstanding; // every request not outstanding is verified
                if (belowMark == mark) {
                    settledBytes = verified;
                    settledNanos = midNanos;
                }
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return new Result(verified, System.nanoTime() - start, midBytes, midNanos, settledBytes, settledNanos);
    }

    /** An action at the midpoint of a transfer; may fail. */
    @FunctionalInterface
    public interface MidpointAction {
        /** @throws IOException if the action fails */
        void run() throws IOException;
    }

    private int lengthOf(int slot) {
        return lengths[slot];
    }

    private boolean post(long request) throws VirtuosoException {
        int slot = (int) (request % slots);
        int off = slot * wrBytes;
        int len = (int) Math.min(wrBytes, totalBytes - request * wrBytes);
        DataPattern.fill(client.buffer(), off, len, seedBase + request);
        if (op == Op.SEND) {
            // the window is far below maxOutstanding, so QUEUE_FULL here is an error, not back-pressure:
            // a RECV posted without its SEND would take the next message out of turn
            server.connection().postRecv(request, server.region(), off, wrBytes);
            client.connection().postSend(request, client.region(), off, len);
        } else {
            try {
                client.connection().postWrite(request, client.region(), off, len, server.region().remote(), off);
            } catch (VirtuosoException e) {
                if (e.reason() == VirtuosoException.Reason.QUEUE_FULL) {
                    return false;
                }
                throw e;
            }
        }
        busy[slot] = true;
        lengths[slot] = len;
        requestOf[slot] = request;
        return true;
    }

    private int drain(Side side, boolean receiver) throws IOException {
        if (receiver && op == Op.WRITE) {
            return 0;
        }
        int n = side.connection().pollCompletions(completions);
        int handled = 0;
        for (int i = 0; i < n; i++) {
            handled += handle(completions[i], receiver);
        }
        return handled;
    }

    private int handle(MpCompletion c, boolean receiver) throws IOException {
        if (!c.ok()) {
            throw new IOException("MP_" + c.opcode() + " #" + c.wrId() + " failed: " + c.status()
                    + (c.detail() != null ? " (" + c.detail() + ")" : ""));
        }
        int slot = (int) (c.wrId() % slots);
        int off = slot * wrBytes;
        int len = lengthOf(slot);
        if (c.opcode() == MpOpcode.RECV) {
            if (c.byteLength() != len) {
                throw new IOException("MP_RECV #" + c.wrId() + " got " + c.byteLength() + " bytes, " + len + " were sent");
            }
            verify(c.wrId(), off, len);
            recvDone[slot] = true;
        } else {
            if (op == Op.WRITE) {
                verify(c.wrId(), off, len);
            }
            sendDone[slot] = true;
        }
        return 1;
    }

    private void verify(long request, int off, int len) throws IOException {
        int at = DataPattern.mismatch(client.buffer(), off, server.buffer(), off, len);
        if (at >= 0) {
            throw new IOException("data mismatch: MP_" + op + " #" + request + " differs at byte " + at + " of " + len);
        }
    }
}
