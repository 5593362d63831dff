package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.Psn;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * The responder half of an RC QP (engine thread only): accepts requests strictly in PSN order,
 * places SEND data into receive WRs and WRITE data into registered regions after checking rkey,
 * bounds and access flags, streams READ responses, answers duplicates (an ACK of the last accepted
 * PSN, READ replay from a history of {@code max_dest_rd_atomic} READs) and sends exactly one
 * NAK-sequence per gap.
 */
final class Responder {
    private static final int IDLE = 0;
    private static final int IN_SEND = 1;
    private static final int IN_WRITE = 2;

    private final SoftQp qp;
    private final RecvWqe recv;

    private int epsn;
    private int msn;
    private boolean nakSent;
    private int mode = IDLE;

    // WRITE in progress
    private SoftMr writeMr;
    private long writeOffset;
    private long writeRemaining;
    private long writeTotal;

    // SEND in progress (receive WR held in 'recv')
    private boolean recvHeld;
    private long recvOffset;

    private boolean ackDue;
    private int ackPsn;
    private PendingResponses pending = new PendingResponses(1);
    private int maxReads = 1;

    // recent READs, replayed for duplicate requests
    private int[] histFirst = new int[1];
    private int[] histPackets = new int[1];
    private int[] histRkey = new int[1];
    private long[] histVa = new long[1];
    private long[] histLen = new long[1];
    private int histNext;
    private int histCount;

    Responder(SoftQp qp, int maxSge) {
        this.qp = qp;
        this.recv = new RecvWqe(Math.max(1, maxSge));
    }

    /** INIT to RTR: expects {@code rqPsn} first. */
    void start(int rqPsn) {
        epsn = rqPsn;
        msn = 0;
        nakSent = false;
        mode = IDLE;
        ackDue = false;
        recvHeld = false;
        int n = Math.max(1, qp.maxDestRdAtomic);
        if (n != maxReads) {
            maxReads = n;
            pending = new PendingResponses(n);
            histFirst = new int[n];
            histPackets = new int[n];
            histRkey = new int[n];
            histVa = new long[n];
            histLen = new long[n];
        }
        pending.clear();
        histNext = 0;
        histCount = 0;
    }

    /** Engine: a request packet for this QP (state RTR or RTS). */
    void onRequest(Engine e, RocePacket p) {
        int d = Psn.diff(p.psn, epsn);
        if (d > 0) {
            qp.counters.inc(VerbsCounter.DROP_PSN_OUT_OF_WINDOW);
            if (!nakSent) {
                nakSent = true;
                qp.counters.inc(VerbsCounter.NAK_SEQ_SENT);
                control(e, Aeth.NAK_PSN_SEQUENCE, epsn);
            }
            return;
        }
        if (d < 0) {
            qp.counters.inc(VerbsCounter.DUPLICATE_REQUESTS);
            if (p.is(RcOpcode.READ)) {
                replayRead(p);
            } else {
                // acknowledge everything accepted so far (as rxe does, C9-105), not just this PSN:
                // a requester probing after a timeout learns at once how far we got
                ack(Psn.prev(epsn));
            }
            return;
        }
        if (p.is(RcOpcode.SEND)) {
            onSend(e, p);
        } else if (p.is(RcOpcode.WRITE)) {
            onWrite(e, p);
        } else {
            onRead(e, p);
        }
    }

    private void onSend(Engine e, RocePacket p) {
        boolean first = p.is(RcOpcode.FIRST);
        boolean last = p.is(RcOpcode.LAST);
        int len = p.payloadLength;
        if (last ? len > qp.mtu : len != qp.mtu) {
            invalid(e, p);
            return;
        }
        if (first) {
            if (mode != IDLE) {
                invalid(e, p);
                return;
            }
            if (!qp.recvAvailable()) {
                rnr(e, p);
                return;
            }
            qp.takeRecv(recv);
            recvHeld = true;
            recvOffset = 0;
            if (!recv.resolve(qp.rnic.mrs, qp.pd)) {
                completeRecv(IbvWcStatus.LOC_PROT_ERR, IbvWcOpcode.RECV, 0, p);
                fatal(e, Aeth.NAK_REMOTE_OPERATIONAL, p.psn, VerbsCounter.NAK_INVALID_SENT);
                return;
            }
            mode = IN_SEND;
        } else if (mode != IN_SEND) {
            invalid(e, p);
            return;
        }
        if (recvOffset + len > recv.capacity) {
            completeRecv(IbvWcStatus.LOC_LEN_ERR, IbvWcOpcode.RECV, 0, p);
            invalid(e, p);
            return;
        }
        if (!scatter(p)) {
            completeRecv(IbvWcStatus.LOC_PROT_ERR, IbvWcOpcode.RECV, 0, p);
            fatal(e, Aeth.NAK_REMOTE_OPERATIONAL, p.psn, VerbsCounter.NAK_INVALID_SENT);
            return;
        }
        recvOffset += len;
        accept(1);
        if (last) {
            mode = IDLE;
            msn = Psn.next(msn);
            completeRecv(IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, (int) recvOffset, p);
        }
        if (p.ackReq) {
            ack(p.psn);
        }
    }

    private void onWrite(Engine e, RocePacket p) {
        boolean first = p.is(RcOpcode.FIRST);
        boolean last = p.is(RcOpcode.LAST);
        boolean imm = p.is(RcOpcode.IMM);
        int len = p.payloadLength;
        if (first) {
            if (mode != IDLE) {
                invalid(e, p);
                return;
            }
            if (imm && !qp.recvAvailable()) {
                rnr(e, p);
                return;
            }
            long total = p.dmaLength;
            if (last ? len != total : (len != qp.mtu || total <= qp.mtu)) {
                invalid(e, p);
                return;
            }
            if (total > 0) {
                SoftMr mr = checkRemote(p.rkey, p.va, total, IbvAccess.REMOTE_WRITE);
                if (mr == null) {
                    fatal(e, Aeth.NAK_REMOTE_ACCESS, p.psn, VerbsCounter.NAK_ACCESS_SENT);
                    return;
                }
                writeMr = mr;
                writeOffset = p.va - mr.address;
            } else {
                writeMr = null;
            }
            writeTotal = total;
            writeRemaining = total;
            mode = IN_WRITE;
        } else {
            if (mode != IN_WRITE) {
                invalid(e, p);
                return;
            }
            if (last ? len != writeRemaining : (len != qp.mtu || writeRemaining <= qp.mtu)) {
                invalid(e, p);
                return;
            }
            if (imm && !qp.recvAvailable()) {
                rnr(e, p);
                return;
            }
        }
        if (len > 0) {
            SoftMr mr = writeMr;
            if (!mr.valid) {
                fatal(e, Aeth.NAK_REMOTE_ACCESS, p.psn, VerbsCounter.NAK_ACCESS_SENT);
                return;
            }
            mr.memory.put((int) writeOffset, p.buffer, p.payloadOffset, len);
            writeOffset += len;
            writeRemaining -= len;
        }
        accept(1);
        if (last) {
            mode = IDLE;
            writeMr = null;
            msn = Psn.next(msn);
            if (imm) {
                qp.takeRecv(recv);
                recvHeld = true;
                completeRecv(IbvWcStatus.SUCCESS, IbvWcOpcode.RECV_RDMA_WITH_IMM, (int) writeTotal, p);
            }
        }
        if (p.ackReq) {
            ack(p.psn);
        }
    }

    private void onRead(Engine e, RocePacket p) {
        if (mode != IDLE) {
            invalid(e, p);
            return;
        }
        if (pending.reads() >= maxReads) {
            tooManyReads(e, p);
            return;
        }
        long len = p.dmaLength;
        if (len > 1L << 31) {
            invalid(e, p);
            return;
        }
        SoftMr mr = null;
        long off = 0;
        if (len > 0) {
            mr = checkRemote(p.rkey, p.va, len, IbvAccess.REMOTE_READ);
            if (mr == null) {
                fatal(e, Aeth.NAK_REMOTE_ACCESS, p.psn, VerbsCounter.NAK_ACCESS_SENT);
                return;
            }
            off = p.va - mr.address;
        }
        int packets = len == 0 ? 1 : (int) ((len + qp.mtu - 1) >>> qp.mtuShift);
        queueAckDue();
        if (!pending.addRead(p.psn, packets, mr, off, len)) {
            tooManyReads(e, p); // not reached: room for max_dest_rd_atomic READs is kept free
            return;
        }
        int h = histNext;
        histFirst[h] = p.psn;
        histPackets[h] = packets;
        histRkey[h] = p.rkey;
        histVa[h] = p.va;
        histLen[h] = len;
        histNext = (h + 1) % histFirst.length;
        histCount = Math.min(histCount + 1, histFirst.length);
        msn = Psn.next(msn);
        accept(packets);
    }

    /** A READ we already executed was asked for again (its responses were lost): replay it. */
    private void replayRead(RocePacket p) {
        for (int n = 0; n < histCount; n++) {
            int h = (histNext - 1 - n + histFirst.length) % histFirst.length;
            int k = Psn.diff(p.psn, histFirst[h]);
            if (k < 0 || k >= histPackets[h]) {
                continue;
            }
            long skip = (long) k << qp.mtuShift;
            long len = histLen[h] - skip;
            if (p.rkey != histRkey[h] || p.va != histVa[h] + skip || p.dmaLength != Math.max(0, len)) {
                qp.counters.inc(VerbsCounter.DROP_MALFORMED);
                return;
            }
            SoftMr mr = null;
            long off = 0;
            if (len > 0) {
                mr = checkRemote(p.rkey, p.va, len, IbvAccess.REMOTE_READ);
                if (mr == null) {
                    return; // deregistered since: nothing to replay
                }
                off = p.va - mr.address;
            }
            pending.truncateFrom(p.psn);
            queueAckDue();
            if (!pending.addRead(p.psn, histPackets[h] - k, mr, off, Math.max(0, len))) {
                // older READs still stream: the requester asks again after its timeout
                qp.counters.inc(VerbsCounter.READ_RESOURCES_EXCEEDED);
            }
            return;
        }
    }

    private SoftMr checkRemote(int rkey, long va, long len, int need) {
        if ((qp.accessFlags & need) == 0) {
            return null;
        }
        SoftMr mr = qp.rnic.mrs.byRkey(rkey);
        if (mr == null || !mr.valid || mr.pd != qp.pd || (mr.access & need) == 0
                || mr.offsetOf(va, len) < 0) {
            return null;
        }
        return mr;
    }

    private boolean scatter(RocePacket p) {
        int n = p.payloadLength;
        int src = p.payloadOffset;
        long skip = recvOffset;
        RecvWqe r = recv;
        for (int i = 0; n > 0 && i < r.numSge; i++) {
            int l = r.len[i];
            if (skip >= l) {
                skip -= l;
                continue;
            }
            SoftMr mr = r.mr[i];
            if (!mr.valid) {
                return false;
            }
            int c = (int) Math.min(l - skip, n);
            mr.memory.put((int) (r.offset[i] + skip), p.buffer, src, c);
            src += c;
            n -= c;
            skip = 0;
        }
        return n == 0;
    }

    private void accept(int packets) {
        epsn = Psn.add(epsn, packets);
        nakSent = false;
    }

    private void completeRecv(IbvWcStatus status, IbvWcOpcode op, int byteLen, RocePacket p) {
        boolean imm = p.is(RcOpcode.IMM) && status == IbvWcStatus.SUCCESS;
        qp.completeRecv(recv.wrId, status, op, byteLen, imm ? p.imm : 0, imm, p.solicited);
        recv.clear();
        recvHeld = false;
    }

    private void rnr(Engine e, RocePacket p) {
        qp.counters.inc(VerbsCounter.RNR_NAK_SENT);
        nakSent = true; // the RNR NAK stands for this gap too: no NAK-sequence until it is filled
        control(e, Aeth.RNR_NAK | (qp.minRnrTimer & 0x1F), p.psn);
    }

    /**
     * A READ beyond {@code max_dest_rd_atomic} outstanding: the requester broke its limit. IBA
     * answers with an Invalid Request NAK (rxe does too), which ends the connection.
     */
    private void tooManyReads(Engine e, RocePacket p) {
        qp.counters.inc(VerbsCounter.READ_RESOURCES_EXCEEDED);
        invalid(e, p);
    }

    private void invalid(Engine e, RocePacket p) {
        fatal(e, Aeth.NAK_INVALID_REQUEST, p.psn, VerbsCounter.NAK_INVALID_SENT);
    }

    /** Sends a NAK that ends the connection and moves the QP to ERR; nothing more is written. */
    private void fatal(Engine e, int syndrome, int psn, VerbsCounter counter) {
        qp.counters.inc(counter);
        ackDue = false;
        pending.clear();
        sendControl(e, syndrome, psn);
        qp.enterError(e);
    }

    /** Schedules an ACK (coalesced: one per engine cycle answers every AckReq up to it). */
    private void ack(int psn) {
        if (!pending.isEmpty()) {
            queueControl(Aeth.ACK_UNLIMITED, psn);
            return;
        }
        if (!ackDue || Psn.gt(psn, ackPsn)) {
            ackPsn = psn;
        }
        ackDue = true;
    }

    /** A NAK: sent at once unless READ responses are queued ahead of it. */
    private void control(Engine e, int syndrome, int psn) {
        ackDue = false; // a NAK at psn acknowledges everything before psn
        if (pending.isEmpty()) {
            sendControl(e, syndrome, psn);
        } else {
            queueControl(syndrome, psn);
        }
    }

    private void queueAckDue() {
        if (ackDue) {
            ackDue = false;
            queueControl(Aeth.ACK_UNLIMITED, ackPsn);
        }
    }

    private void queueControl(int syndrome, int psn) {
        if (!pending.addControl(syndrome, psn)) {
            qp.counters.inc(VerbsCounter.DROP_RX_OVERRUN); // the requester's timer recovers
        }
    }

    private boolean sendControl(Engine e, int syndrome, int psn) {
        e.builder.begin(RcOpcode.ACKNOWLEDGE, false, qp.destQpn, false, psn, 0).aeth(syndrome, msn);
        return e.transmit(qp);
    }

    /** Engine: sends queued responses, then a due ACK. */
    /** @return whether responses (ACKs, NAKs, read responses) are due */
    boolean busy() {
        return !pending.isEmpty() || ackDue;
    }

    int service(Engine e) {
        int work = 0;
        PendingResponses q = pending;
        while (!q.isEmpty() && work < e.txBurst) {
            if (q.headKind() == PendingResponses.READ) {
                int r = sendReadResponse(e, q);
                if (r < 0) {
                    e.txBlocked = true;
                    return work;
                }
            } else {
                if (!sendControl(e, q.headSyndrome(), q.headPsn())) {
                    e.txBlocked = true;
                    return work;
                }
                q.pop();
            }
            work++;
        }
        if (ackDue && q.isEmpty()) {
            if (sendControl(e, Aeth.ACK_UNLIMITED, ackPsn)) {
                ackDue = false;
                work++;
            } else {
                e.txBlocked = true;
            }
        }
        return work;
    }

    private int sendReadResponse(Engine e, PendingResponses q) {
        long remaining = q.headRemaining();
        int payload = (int) Math.min(qp.mtu, remaining);
        boolean first = q.headFresh();
        boolean last = remaining <= qp.mtu;
        PacketBuilder b = e.builder.begin(RcOpcode.readResponse(first, last), false, qp.destQpn,
                false, q.headPsn(), payload);
        if (first || last) {
            b.aeth(Aeth.ACK_UNLIMITED, msn);
        }
        if (payload > 0) {
            SoftMr mr = q.headMr();
            if (!mr.valid) {
                q.pop(); // deregistered under a READ: the requester times out
                return 0;
            }
            b.buffer().put(b.payloadOffset(), mr.memory, (int) q.headOffset(), payload);
        }
        if (!e.transmit(qp)) {
            return -1;
        }
        if (last) {
            q.pop();
        } else {
            q.headSent(payload);
        }
        return 1;
    }

    /** QP in ERR: a held receive WR completes flushed; queued responses are dropped. */
    void flush() {
        if (recvHeld) {
            qp.completeRecv(recv.wrId, IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0, false,
                    false);
            recv.clear();
            recvHeld = false;
        }
        pending.clear();
        ackDue = false;
        mode = IDLE;
        writeMr = null;
    }

    /** QP to RESET: forgets everything without completions. */
    void reset() {
        recv.clear();
        recvHeld = false;
        pending.clear();
        ackDue = false;
        mode = IDLE;
        writeMr = null;
    }
}
