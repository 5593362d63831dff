package dev.virtuoso.verbs.soft.rnic;

import java.nio.ByteBuffer;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.Psn;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * The requester half of an RC QP (engine thread only): segments send WRs into packets within a
 * window of unacknowledged PSNs, matches ACKs, NAKs and READ responses, retransmits go-back-N on
 * timeout or NAK, and completes WRs in posting order.
 *
 * <p>PSN bookkeeping: {@code unacked} is the oldest PSN not yet acknowledged (it lies in the WQE at
 * {@code head}); {@code txPsn} is the next PSN to transmit (in the WQE at {@code tx}, at byte
 * {@code txOffset}); {@code highPsn} is one past the highest PSN ever sent. A rewind moves the
 * transmit cursor back to {@code unacked}; each WQE keeps the PSN of its first packet, so the
 * position of any PSN inside it is {@code (psn - firstPsn) * mtu}.
 *
 * <p>Retransmit timer: it runs while PSNs are unacknowledged and restarts (from a fresh clock
 * reading) on progress and whenever a packet asking for an ACK leaves, because no ACK can be
 * expected before the request for it was sent, however long this thread was stalled before. When
 * it runs out the engine first drains its ports and the timer is checked again: a timeout is
 * declared only if no response that arrived before the deadline made progress. A timeout then
 * goes back to {@code unacked} but sends only that one packet, with AckReq (a probe), and waits:
 * the responder answers a duplicate with an ACK of everything it has, so a timeout whose data had
 * arrived costs one packet instead of the window. Progress that ends exactly at the probe (the
 * responder lacked it, so everything after it too) ends probing and go-back-N continues from
 * there; other progress may be a late answer to earlier packets while the rest is still in
 * flight, so it only lets the next probe go, from the new {@code unacked}; a NAK ends probing.
 */
final class Requester {
    /** Lowest rate limit, kbit/s ({@code qp_rate_limit_min}). */
    static final int RATE_LIMIT_MIN_KBPS = 1000;
    /** Highest rate limit, kbit/s ({@code qp_rate_limit_max}). */
    static final int RATE_LIMIT_MAX_KBPS = Integer.MAX_VALUE;
    /**
     * A paced QP that could not send for a while (the engine woke late) may catch up this much, so a
     * late wake-up costs no rate, yet the burst stays far below a shallow queue.
     */
    static final long PACE_BURST_NANOS = 200_000;
    /** Bytes a packet adds on the wire beyond its payload (Ethernet, IPv4, UDP, BTH, ICRC). */
    static final int WIRE_OVERHEAD_BYTES = 58;
    private final SoftQp qp;
    private final SendRing sq;

    // attributes, set at RTS
    private int window;
    private int ackInterval;
    private int readSegmentPackets;
    private long timeoutNanos;
    private int retryCnt;
    private int rnrRetry;
    private int maxReads;

    // cursors
    private long head;
    private long tx;
    private int txOffset;
    private int txPsn;
    private int highPsn;
    private int unacked;
    private int packetsSinceAckReq;

    // recovery
    private int retriesLeft;
    private int rnrLeft;
    private boolean rewindPending;
    /** After a timeout: send one packet (with AckReq) and wait for a response. */
    private boolean probing;
    private boolean probeSent;
    private int probePsn;
    /** Whether the packet just sent asked for an ACK. */
    private boolean sentAckReq;
    private long timerDeadline;
    private long rnrUntil;
    /** Packet pacing (the QP's rate limit): picoseconds per byte on the wire, 0 when not paced. */
    private long pacePicosPerByte;
    /** Earliest time the next paced packet may leave (nanoTime). */
    private long paceAt;
    /** Whether transmission stopped for pacing (its deadline is then {@link #paceAt}). */
    private boolean paceWaiting;

    // outstanding READ requests: PSN of the last response each expects, oldest first
    private int[] readLast = new int[1];
    private int readHead;
    private int readCount;

    Requester(SoftQp qp, SendRing sq) {
        this.qp = qp;
        this.sq = sq;
    }

    /** RTR to RTS: takes the QP's send attributes and starts at {@code sqPsn}. */
    void start(SoftRnicConfig s, int sqPsn) {
        window = s.windowPackets();
        ackInterval = Math.max(1, Math.min(s.ackRequestInterval(), window / 2));
        readSegmentPackets = Math.max(1, Math.min(s.readSegmentPackets(), window));
        timeoutNanos = qp.timeout == 0 ? 0 : 4096L << qp.timeout;
        retryCnt = qp.retryCnt;
        rnrRetry = qp.rnrRetry;
        maxReads = Math.max(1, qp.maxRdAtomic);
        if (readLast.length < maxReads) {
            readLast = new int[maxReads];
        }
        txPsn = sqPsn;
        highPsn = sqPsn;
        unacked = sqPsn;
        txOffset = 0;
        tx = head;
        packetsSinceAckReq = 0;
        retriesLeft = retryCnt;
        rnrLeft = rnrRetry;
        rewindPending = false;
        probing = false;
        probeSent = false;
        timerDeadline = 0;
        rnrUntil = 0;
        readCount = 0;
    }

    /** Sets the send rate limit ({@code rate_limit}, kbit/s on the wire; 0 for none); takes effect at once. */
    void rateLimit(int kbps) {
        pacePicosPerByte = kbps == 0 ? 0 : 8_000_000_000L / kbps;
        paceAt = 0;
        paceWaiting = false;
    }

    /** @return the earliest timer deadline (nanoTime), or 0 if none runs */
    long deadline() {
        if (rnrUntil != 0) {
            return rnrUntil;
        }
        if (paceWaiting && (timerDeadline == 0 || paceAt - timerDeadline < 0)) {
            return paceAt == 0 ? 1 : paceAt;
        }
        return timerDeadline;
    }

    /** @return whether WRs wait to be sent or a timer runs (retransmit, RNR, pacing) */
    boolean busy() {
        return tx != qp.sqPosted || deadline() != 0;
    }

    /** Engine: timers, then transmission within the window. */
    int service(Engine e, long now) {
        int work = 0;
        if (timerDeadline != 0 && now - timerDeadline >= 0) {
            work++;
            long checkedAt = System.nanoTime();
            e.drainPorts(); // responses queued before checkedAt may restart or stop the timer
            if (!qp.isRts()) {
                return work;
            }
            if (timerDeadline != 0 && checkedAt - timerDeadline >= 0) {
                onTimeout(e);
                if (!qp.isRts()) {
                    return work;
                }
            }
        }
        if (rnrUntil != 0) {
            if (now - rnrUntil < 0) {
                return work;
            }
            rnrUntil = 0;
            work++;
        }
        return work + transmit(e, now);
    }

    private int transmit(Engine e, long now) {
        int sent = 0;
        int budget = e.txBurst;
        paceWaiting = false;
        while (sent < budget && tx != qp.sqPosted && !probeSent) {
            if (pacePicosPerByte != 0 && paceAt - now > 0) {
                paceWaiting = true;
                break;
            }
            SendWqe w = sq.slot(tx);
            if (txOffset == 0) {
                if (!w.started && !prepare(w)) {
                    if (w.error == null) {
                        w.error = IbvWcStatus.LOC_PROT_ERR;
                    }
                    qp.enterError(e);
                    return sent + 1;
                }
                if ((w.flags & IbvSendFlags.FENCE) != 0 && readCount > 0) {
                    break;
                }
                w.firstPsn = txPsn;
            }
            if (Psn.diff(txPsn, unacked) >= window) {
                break;
            }
            int psn = txPsn;
            boolean ok;
            if (w.opcode == IbvWrOpcode.RDMA_READ) {
                if (readCount >= maxReads) {
                    break;
                }
                ok = sendReadRequest(e, w);
            } else {
                ok = sendDataPacket(e, w);
            }
            if (!ok) {
                // not sent (back-pressure): retry next cycle; the timer still runs, so a wire that
                // keeps refusing ends in RETRY_EXC_ERR like a dead link
                e.txBlocked = true;
                if (timerDeadline == 0 && timeoutNanos > 0) {
                    timerDeadline = now + timeoutNanos;
                }
                break;
            }
            sent++;
            if (pacePicosPerByte != 0) {
                pace(now, w, psn);
            }
            if (!qp.isRts()) {
                return sent;
            }
            if (probing) {
                probeSent = true;
                probePsn = psn;
            }
            if (timeoutNanos > 0 && (sentAckReq || timerDeadline == 0)) {
                // read the clock after the send: this thread may have stalled since the cycle began
                timerDeadline = System.nanoTime() + timeoutNanos;
            }
        }
        return sent;
    }

    /** Moves {@link #paceAt} on by the wire time of the packet just sent ({@code psn} of WQE {@code w}). */
    private void pace(long now, SendWqe w, int psn) {
        long payload = w.opcode == IbvWrOpcode.RDMA_READ ? 0
                : packetPayload(w.length, Psn.diff(psn, w.firstPsn), qp.mtu, qp.mtuShift);
        paceAt = nextPaceAt(paceAt, now, payload + WIRE_OVERHEAD_BYTES, pacePicosPerByte);
    }

    /** @return the payload of packet {@code index} (from 0) of a message of {@code length} bytes */
    static long packetPayload(long length, int index, int mtu, int mtuShift) {
        return Math.min(mtu, length - ((long) index << mtuShift));
    }

    /**
     * @return when the packet after one of {@code wireBytes} may leave: its wire time after the
     *     previous one's slot, or after {@code now} less the catch-up allowance if the QP fell behind
     */
    static long nextPaceAt(long paceAt, long now, long wireBytes, long picosPerByte) {
        long start = paceAt - (now - PACE_BURST_NANOS) < 0 ? now - PACE_BURST_NANOS : paceAt;
        return start + wireBytes * picosPerByte / 1000;
    }

    /** First transmission of a WQE: checks its local SGEs and counts its packets. */
    private boolean prepare(SendWqe w) {
        if (w.error != null) {
            return false;
        }
        if (!w.inline) {
            MrTable mrs = qp.rnic.mrs;
            int need = w.opcode == IbvWrOpcode.RDMA_READ ? IbvAccess.LOCAL_WRITE : 0;
            for (int i = 0; i < w.numSge; i++) {
                SoftMr mr = mrs.byLkey(w.lkey[i]);
                if (mr == null || mr.pd != qp.pd || (mr.access & need) != need) {
                    return false;
                }
                long off = mr.offsetOf(w.addr[i], w.len[i]);
                if (off < 0) {
                    return false;
                }
                w.mr[i] = mr;
                w.offset[i] = off;
            }
        }
        w.npsn = w.length == 0 ? 1 : (int) (((long) w.length + qp.mtu - 1) >>> qp.mtuShift);
        w.started = true;
        return true;
    }

    private boolean sendDataPacket(Engine e, SendWqe w) {
        int remaining = w.length - txOffset;
        int payload = Math.min(qp.mtu, remaining);
        boolean first = txOffset == 0;
        boolean last = remaining <= qp.mtu;
        boolean send = w.opcode == IbvWrOpcode.SEND || w.opcode == IbvWrOpcode.SEND_WITH_IMM;
        boolean imm = w.opcode == IbvWrOpcode.SEND_WITH_IMM
                || w.opcode == IbvWrOpcode.RDMA_WRITE_WITH_IMM;
        int op = send ? RcOpcode.send(first, last, imm) : RcOpcode.write(first, last, imm);
        boolean ackReq = last || probing || packetsSinceAckReq + 1 >= ackInterval;
        boolean solicited = last && (send || imm) && (w.flags & IbvSendFlags.SOLICITED) != 0;
        PacketBuilder b = e.builder.begin(op, solicited, qp.destQpn, ackReq, txPsn, payload);
        if (first && !send) {
            b.reth(w.remoteAddr, w.rkey, w.length);
        }
        if (last && imm) {
            b.imm(w.imm);
        }
        if (!gather(w, txOffset, b.buffer(), b.payloadOffset(), payload)) {
            w.error = IbvWcStatus.LOC_PROT_ERR;
            qp.enterError(e);
            return true;
        }
        if (!e.transmit(qp)) {
            return false;
        }
        sentAckReq = ackReq;
        packetsSinceAckReq = ackReq ? 0 : packetsSinceAckReq + 1;
        advance(1);
        if (last) {
            tx++;
            txOffset = 0;
        } else {
            txOffset += payload;
        }
        return true;
    }

    private boolean sendReadRequest(Engine e, SendWqe w) {
        long segmentBytes = (long) readSegmentPackets << qp.mtuShift;
        int end = (int) Math.min(w.length, (txOffset / segmentBytes + 1) * segmentBytes);
        int len = end - txOffset;
        int packets = len == 0 ? 1 : (int) (((long) len + qp.mtu - 1) >>> qp.mtuShift);
        e.builder.begin(RcOpcode.READ_REQUEST, false, qp.destQpn, true, txPsn, 0)
                .reth(w.remoteAddr + txOffset, w.rkey, len);
        if (!e.transmit(qp)) {
            return false;
        }
        sentAckReq = true;
        readLast[(readHead + readCount) % readLast.length] = Psn.add(txPsn, packets - 1);
        readCount++;
        packetsSinceAckReq = 0;
        advance(packets);
        if (end >= w.length) {
            tx++;
            txOffset = 0;
        } else {
            txOffset = end;
        }
        return true;
    }

    /** Moves {@code txPsn} on by {@code packets}, counting retransmissions below {@code highPsn}. */
    private void advance(int packets) {
        if (Psn.lt(txPsn, highPsn)) {
            qp.counters.inc(VerbsCounter.RETRANSMITTED_PACKETS);
        }
        txPsn = Psn.add(txPsn, packets);
        if (Psn.gt(txPsn, highPsn)) {
            highPsn = txPsn;
        }
    }

    /** Copies {@code n} message bytes from {@code off} out of the WQE's SGEs into the packet. */
    private static boolean gather(SendWqe w, int off, ByteBuffer dst, int dstOff, int n) {
        if (w.inline) {
            if (n > 0) {
                dst.put(dstOff, w.inlineData, off, n);
            }
            return true;
        }
        long skip = off;
        int pos = dstOff;
        for (int i = 0; n > 0 && i < w.numSge; i++) {
            int l = w.len[i];
            if (skip >= l) {
                skip -= l;
                continue;
            }
            SoftMr mr = w.mr[i];
            if (!mr.valid) {
                return false;
            }
            int c = (int) Math.min(l - skip, n);
            dst.put(pos, mr.memory, (int) (w.offset[i] + skip), c);
            pos += c;
            n -= c;
            skip = 0;
        }
        return n == 0;
    }

    /** Copies a READ response payload into the WQE's SGEs at message offset {@code off}. */
    private static boolean scatter(SendWqe w, long off, RocePacket p) {
        int n = p.payloadLength;
        int src = p.payloadOffset;
        long skip = off;
        for (int i = 0; n > 0 && i < w.numSge; i++) {
            int l = w.len[i];
            if (skip >= l) {
                skip -= l;
                continue;
            }
            SoftMr mr = w.mr[i];
            if (!mr.valid) {
                return false;
            }
            int c = (int) Math.min(l - skip, n);
            mr.memory.put((int) (w.offset[i] + skip), p.buffer, src, c);
            src += c;
            n -= c;
            skip = 0;
        }
        return n == 0;
    }

    /** Engine: an ACK, NAK or READ response for this QP (state RTS). */
    void onResponse(Engine e, RocePacket p, long now) {
        if (p.is(RcOpcode.ACK)) {
            onAck(e, p, now);
        } else {
            onReadResponse(e, p);
        }
    }

    private void onAck(Engine e, RocePacket p, long now) {
        int psn = p.psn;
        int s = p.syndrome;
        if (!Psn.lt(psn, highPsn) || Psn.lt(psn, unacked)) {
            // acknowledges nothing outstanding: never sent, or overtaken by a later response
            qp.counters.inc(VerbsCounter.DROP_UNEXPECTED_RESPONSE);
            return;
        }
        if (Aeth.isAck(s)) {
            ackThrough(e, psn);
            return;
        }
        if (Aeth.isRnrNak(s)) {
            qp.counters.inc(VerbsCounter.RNR_NAK_RECEIVED);
        } else if (Aeth.isNak(s)) {
            qp.counters.inc(nakCounter(s));
        } else {
            qp.counters.inc(VerbsCounter.DROP_MALFORMED);
            return;
        }
        if (psn != unacked) {
            // a NAK at psn acknowledges everything before it
            ackThrough(e, Psn.prev(psn));
            if (!qp.isRts() || psn != unacked) {
                return;
            }
        }
        if (Aeth.isRnrNak(s)) {
            if (rnrRetry != 7) {
                if (rnrLeft == 0) {
                    failHead(e, IbvWcStatus.RNR_RETRY_EXC_ERR);
                    return;
                }
                rnrLeft--;
            }
            rewind(unacked);
            timerDeadline = 0;
            rnrUntil = (now + Aeth.rnrTimerNanos(s & 0x1F)) | 1;
            return;
        }
        switch (s) {
            case Aeth.NAK_PSN_SEQUENCE:
                if (rnrUntil == 0) {
                    retry(e);
                }
                break;
            case Aeth.NAK_INVALID_REQUEST:
                failHead(e, IbvWcStatus.REM_INV_REQ_ERR);
                break;
            case Aeth.NAK_REMOTE_ACCESS:
                failHead(e, IbvWcStatus.REM_ACCESS_ERR);
                break;
            default:
                failHead(e, IbvWcStatus.REM_OP_ERR);
                break;
        }
    }

    private static VerbsCounter nakCounter(int syndrome) {
        switch (syndrome) {
            case Aeth.NAK_PSN_SEQUENCE:
                return VerbsCounter.NAK_SEQ_RECEIVED;
            case Aeth.NAK_REMOTE_ACCESS:
                return VerbsCounter.NAK_ACCESS_RECEIVED;
            default:
                return VerbsCounter.NAK_INVALID_RECEIVED;
        }
    }

    private void onReadResponse(Engine e, RocePacket p) {
        int psn = p.psn;
        if (!Psn.lt(psn, highPsn) || Psn.lt(psn, unacked)) {
            qp.counters.inc(VerbsCounter.DROP_UNEXPECTED_RESPONSE);
            return;
        }
        if (psn != unacked) {
            // responses come in PSN order: this one implies every earlier request was executed
            ackThrough(e, Psn.prev(psn));
            if (!qp.isRts()) {
                return;
            }
            if (psn != unacked) {
                retry(e);
                qp.counters.inc(VerbsCounter.DROP_PSN_OUT_OF_WINDOW);
                return;
            }
        }
        if (head == qp.sqPosted) {
            qp.counters.inc(VerbsCounter.DROP_UNEXPECTED_RESPONSE);
            return;
        }
        SendWqe w = sq.slot(head);
        int k = Psn.diff(psn, w.firstPsn);
        if (w.opcode != IbvWrOpcode.RDMA_READ || !w.started || k < 0 || k >= w.npsn) {
            qp.counters.inc(VerbsCounter.DROP_UNEXPECTED_RESPONSE);
            return;
        }
        long off = (long) k << qp.mtuShift;
        int expected = (int) Math.min(qp.mtu, w.length - off);
        if (p.payloadLength != expected) {
            qp.counters.inc(VerbsCounter.DROP_MALFORMED);
            return;
        }
        if (!scatter(w, off, p)) {
            w.error = IbvWcStatus.LOC_PROT_ERR;
            qp.enterError(e);
            return;
        }
        unacked = Psn.next(psn);
        if (k == w.npsn - 1) {
            completeHead(IbvWcStatus.SUCCESS);
        }
        onProgress();
    }

    /** Acknowledges every PSN up to and including {@code q}. */
    private void ackThrough(Engine e, int q) {
        if (Psn.lt(q, unacked)) {
            return;
        }
        boolean progress = false;
        while (head != qp.sqPosted) {
            SendWqe w = sq.slot(head);
            if (!w.started) {
                break;
            }
            if (w.opcode == IbvWrOpcode.RDMA_READ) {
                if (Psn.lt(q, unacked)) {
                    break; // the ACK ends before this READ: it implies nothing about it
                }
                // acknowledged at or past a READ whose responses did not all arrive: responses
                // come in PSN order, so they were lost
                if (progress) {
                    onProgress();
                }
                retry(e);
                return;
            }
            int last = Psn.add(w.firstPsn, w.npsn - 1);
            if (Psn.le(last, q)) {
                unacked = Psn.next(last);
                progress = true;
                completeHead(IbvWcStatus.SUCCESS);
                if (!qp.isRts()) {
                    return;
                }
                continue;
            }
            unacked = Psn.next(q);
            progress = true;
            break;
        }
        if (progress) {
            onProgress();
        }
    }

    private void onProgress() {
        retriesLeft = retryCnt;
        rnrLeft = rnrRetry;
        rewindPending = false;
        if (probing) {
            // An ACK that ends exactly at the probe, or the first response to a probing READ,
            // says the responder lacked the probe, hence everything after it: go back N from
            // here. Other progress may answer earlier packets while the rest is still in flight
            // (the responder or this engine was slow): probe again from the new oldest PSN
            // rather than resend the window.
            if ((probeSent && unacked == Psn.next(probePsn)) || !Psn.lt(unacked, highPsn)) {
                probing = false;
            }
            probeSent = false;
        }
        while (readCount > 0 && Psn.lt(readLast[readHead], unacked)) {
            readHead = (readHead + 1) % readLast.length;
            readCount--;
        }
        if (Psn.gt(unacked, txPsn)) {
            seek(unacked); // the peer acknowledged packets we were about to send again
        }
        // a fresh clock reading: the cycle's may be older than a stall of this thread
        timerDeadline = Psn.lt(unacked, txPsn) && timeoutNanos > 0
                ? System.nanoTime() + timeoutNanos : 0;
    }

    /**
     * NAK-sequence or implied NAK: go back to {@code unacked} at once. Every retry counts against
     * {@code retry_cnt} (IBA; rxe does the same); only progress restores the count.
     */
    private void retry(Engine e) {
        if (rewindPending) {
            return; // already going back to this PSN: the same loss, not another retry
        }
        if (retriesLeft == 0) {
            failHead(e, IbvWcStatus.RETRY_EXC_ERR);
            return;
        }
        retriesLeft--;
        rewind(unacked);
        rewindPending = true;
        timerDeadline = 0;
    }

    private void onTimeout(Engine e) {
        timerDeadline = 0;
        qp.counters.inc(VerbsCounter.RETRANSMIT_TIMEOUTS);
        if (retriesLeft == 0) {
            failHead(e, IbvWcStatus.RETRY_EXC_ERR);
            return;
        }
        retriesLeft--;
        rewind(unacked);
        rewindPending = true;
        probing = true;
    }

    /** Go-back-N: the next packet sent is the one with PSN {@code psn} (== unacked). */
    private void rewind(int psn) {
        seek(psn);
        readCount = 0;
        readHead = 0;
        probing = false;
        probeSent = false;
    }

    private void seek(int psn) {
        tx = head;
        txPsn = psn;
        txOffset = 0;
        if (head != qp.sqPosted) {
            SendWqe w = sq.slot(head);
            if (w.started) {
                int k = Psn.diff(psn, w.firstPsn);
                if (k > 0 && k < w.npsn) {
                    txOffset = k << qp.mtuShift;
                }
            }
        }
    }

    private void failHead(Engine e, IbvWcStatus status) {
        if (head != qp.sqPosted) {
            sq.slot(head).error = status;
        }
        qp.enterError(e);
    }

    private void completeHead(IbvWcStatus status) {
        SendWqe w = sq.slot(head);
        qp.completeSend(w, status);
        for (int i = 0; i < w.numSge; i++) {
            w.mr[i] = null;
        }
        head++;
        sq.retire(head);
    }

    /** QP in ERR: completes every outstanding WR, the failed one with its error, others flushed. */
    int flush() {
        int n = 0;
        while (head != qp.sqPosted) {
            SendWqe w = sq.slot(head);
            completeHead(w.error != null ? w.error : IbvWcStatus.WR_FLUSH_ERR);
            n++;
        }
        tx = head;
        txOffset = 0;
        timerDeadline = 0;
        rnrUntil = 0;
        readCount = 0;
        probing = false;
        probeSent = false;
        return n;
    }

    /** QP to RESET: forgets every WR without completing it. */
    void reset() {
        while (head != qp.sqPosted) {
            head++;
        }
        sq.retire(head);
        tx = head;
        txOffset = 0;
        timerDeadline = 0;
        rnrUntil = 0;
        readCount = 0;
        probing = false;
        probeSent = false;
    }
}
