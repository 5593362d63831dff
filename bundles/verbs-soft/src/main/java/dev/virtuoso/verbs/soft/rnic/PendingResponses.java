package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.verbs.soft.packet.Psn;

/**
 * A responder's responses waiting to be sent, in PSN order: READ response streams and control
 * responses (ACK, NAK) queued behind them. An RC responder answers in request order, so an ACK
 * for a request that follows a READ must wait until that READ's responses are out. Preallocated
 * ring; engine thread only.
 */
final class PendingResponses {
    static final int READ = 1;
    static final int CONTROL = 2;

    private final int[] kind;
    /** READ: PSN of the next response; CONTROL: the AETH's PSN. */
    private final int[] psn;
    /** READ: PSN of the last response. */
    private final int[] lastPsn;
    /** CONTROL: syndrome. */
    private final int[] syndrome;
    private final SoftMr[] mr;
    /** READ: offset in the region of the next response's first byte. */
    private final long[] offset;
    /** READ: bytes still to send. */
    private final long[] remaining;
    /** READ: no response of this stream has been sent yet. */
    private final boolean[] fresh;
    private final int maxReads;
    private int headIndex;
    private int count;
    private int reads;

    /**
     * @param maxReads READ streams the responder may hold ({@code max_dest_rd_atomic}); room for
     *     them is kept free of control responses
     */
    PendingResponses(int maxReads) {
        this.maxReads = Math.max(1, maxReads);
        int cap = 4 * this.maxReads + 8;
        kind = new int[cap];
        psn = new int[cap];
        lastPsn = new int[cap];
        syndrome = new int[cap];
        mr = new SoftMr[cap];
        offset = new long[cap];
        remaining = new long[cap];
        fresh = new boolean[cap];
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** @return READ streams queued */
    int reads() {
        return reads;
    }

    private int index(int k) {
        return (headIndex + k) % kind.length;
    }

    /** @return false if {@code max_dest_rd_atomic} READ streams are queued already */
    boolean addRead(int firstPsn, int packets, SoftMr region, long off, long len) {
        if (reads >= maxReads || count == kind.length) {
            return false;
        }
        int i = index(count++);
        kind[i] = READ;
        psn[i] = firstPsn;
        lastPsn[i] = Psn.add(firstPsn, packets - 1);
        mr[i] = region;
        offset[i] = off;
        remaining[i] = len;
        fresh[i] = true;
        reads++;
        return true;
    }

    /**
     * Queues an ACK or NAK; consecutive ACKs coalesce, a repeat of the last NAK is dropped, and an
     * ACK older than what is queued is implied by it and dropped. Control responses never take
     * the room of the READ streams still allowed: when only that room is left, the new response
     * replaces a control response at the tail (responses are cumulative: a later ACK or NAK
     * implies an earlier one), or is dropped (the requester's timer recovers).
     *
     * @return false if it was dropped for lack of room
     */
    boolean addControl(int syn, int atPsn) {
        if (count > 0) {
            int t = index(count - 1);
            int tailPsn = kind[t] == READ ? lastPsn[t] : psn[t];
            boolean ack = (syn & 0xE0) == 0;
            if (ack && Psn.le(atPsn, tailPsn)) {
                return true;
            }
            if (kind[t] == CONTROL && (ack ? (syndrome[t] & 0xE0) == 0
                    : syndrome[t] == syn && psn[t] == atPsn)) {
                psn[t] = atPsn;
                return true;
            }
            if (count >= kind.length - (maxReads - reads)) {
                if (kind[t] != CONTROL) {
                    return false;
                }
                psn[t] = atPsn;
                syndrome[t] = syn;
                return true;
            }
        }
        int i = index(count++);
        kind[i] = CONTROL;
        psn[i] = atPsn;
        syndrome[i] = syn;
        mr[i] = null;
        return true;
    }

    /**
     * A duplicate READ at {@code fromPsn} asks for everything from there again: drops queued
     * responses at or after it (they will be asked for again too).
     */
    void truncateFrom(int fromPsn) {
        while (count > 0) {
            int t = index(count - 1);
            int end = kind[t] == READ ? lastPsn[t] : psn[t];
            if (Psn.lt(end, fromPsn)) {
                break;
            }
            if (kind[t] == READ) {
                reads--;
            }
            mr[t] = null;
            count--;
        }
    }

    int headKind() {
        return kind[headIndex];
    }

    int headPsn() {
        return psn[headIndex];
    }

    int headSyndrome() {
        return syndrome[headIndex];
    }

    SoftMr headMr() {
        return mr[headIndex];
    }

    long headOffset() {
        return offset[headIndex];
    }

    long headRemaining() {
        return remaining[headIndex];
    }

    boolean headFresh() {
        return fresh[headIndex];
    }

    /** The head READ stream sent one response of {@code bytes}. */
    void headSent(int bytes) {
        int i = headIndex;
        psn[i] = Psn.next(psn[i]);
        offset[i] += bytes;
        remaining[i] -= bytes;
        fresh[i] = false;
    }

    void pop() {
        int i = headIndex;
        if (kind[i] == READ) {
            reads--;
        }
        mr[i] = null;
        headIndex = (i + 1) % kind.length;
        count--;
    }

    void clear() {
        while (count > 0) {
            pop();
        }
    }
}
