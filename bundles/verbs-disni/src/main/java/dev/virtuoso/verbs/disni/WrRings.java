package dev.virtuoso.verbs.disni;

import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The caller's wr_ids of one QP's outstanding work, restored when completions are polled.
 *
 * <p>Sends: a sequence number per post (carried in the native wr_id, see {@link NativeWrId});
 * send completions arrive in posting order, and a completion for sequence s retires every earlier
 * (possibly unsignaled) send. Receives: a FIFO, because an RC receive queue completes in posting
 * order and DiSNI's prepared receive calls cannot carry a per-post id. Depth limits are enforced
 * here ({@link VerbsException#ENOMEM} when a queue is full), so ring slots are never overwritten
 * while in use.
 *
 * <p>Posting side: one thread at a time per direction (the QP's post locks). Polling side: the
 * CQ's single poller. Volatile counters publish the slots between them.
 */
final class WrRings {
    private final int maxSend;
    private final int maxRecv;
    private final long[] sendIds;
    private final int sendMask;
    private final long[] recvIds;
    private final int recvMask;
    private volatile long sendPosted;
    private volatile long sendDone;
    private volatile long recvTail;
    private volatile long recvHead;

    WrRings(int maxSend, int maxRecv) {
        this.maxSend = maxSend;
        this.maxRecv = maxRecv;
        this.sendIds = new long[pow2(maxSend)];
        this.sendMask = sendIds.length - 1;
        this.recvIds = new long[pow2(maxRecv)];
        this.recvMask = recvIds.length - 1;
    }

    private static int pow2(int n) {
        return Integer.highestOneBit(Math.max(1, n - 1)) << 1;
    }

    /** @return the send sequence number assigned to {@code wrId} */
    long reserveSend(long wrId) throws VerbsException {
        long posted = sendPosted;
        if (posted - sendDone >= maxSend) {
            throw new VerbsException(VerbsException.ENOMEM, "send queue full (" + maxSend + " outstanding)");
        }
        sendIds[(int) posted & sendMask] = wrId;
        sendPosted = posted + 1;
        return posted;
    }

    /** Undoes the last {@link #reserveSend} after a failed post. */
    void unreserveSend(long seq) {
        sendPosted = seq;
    }

    /** @param seq39 the sequence bits of a native wr_id @return the caller's wr_id */
    long takeSend(long seq39) {
        long done = sendDone;
        long full = done + ((seq39 - done) & NativeWrId.SEQ_MASK);
        long id = sendIds[(int) full & sendMask];
        sendDone = full + 1;
        return id;
    }

    void reserveRecv(long wrId) throws VerbsException {
        long tail = recvTail;
        if (tail - recvHead >= maxRecv) {
            throw new VerbsException(VerbsException.ENOMEM, "receive queue full (" + maxRecv + " outstanding)");
        }
        recvIds[(int) tail & recvMask] = wrId;
        recvTail = tail + 1;
    }

    void unreserveRecv() {
        recvTail = recvTail - 1;
    }

    long takeRecv() {
        long head = recvHead;
        long id = recvIds[(int) head & recvMask];
        recvHead = head + 1;
        return id;
    }

    /** @return first and end (exclusive) send sequence numbers still outstanding */
    long sendDone() {
        return sendDone;
    }

    long sendPosted() {
        return sendPosted;
    }

    long recvOutstanding() {
        return recvTail - recvHead;
    }

    /** Forgets all outstanding work without completions (RESET). */
    void discard() {
        sendDone = sendPosted;
        recvHead = recvTail;
    }
}
