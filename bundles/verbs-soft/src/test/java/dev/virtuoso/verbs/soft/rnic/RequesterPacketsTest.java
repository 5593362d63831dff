package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.Psn;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * The requester packet by packet against a {@link RawPeer}: segmentation at the MTU, headers,
 * AckReq, PSN wrap, ACK coalescing and stale ACKs, every NAK kind and its completion status,
 * RNR retries, READ requests and responses, the window, fences and local protection errors.
 */
class RequesterPacketsTest {
    private static final int MTU = RawPeer.MTU;
    private RawPeer peer;

    @AfterEach
    void tearDown() {
        if (peer != null) {
            peer.close();
        }
    }

    private static IbvSendWr wr(long id, IbvWrOpcode op, IbvMr mr, int off, int len) {
        IbvSendWr w = new IbvSendWr(2).wrId(id).opcode(op).sendFlags(IbvSendFlags.SIGNALED)
                .remoteAddr(0x7000_0000_1000L).rkey(0x5EC2E7).immData(0x1234ABCD);
        w.numSge(1).sge(0).set(mr.address() + off, len, mr.lkey());
        return w;
    }

    private IbvMr filled(int size) throws Exception {
        IbvMr mr = peer.mr(size, IbvAccess.ALL);
        for (int i = 0; i < size; i++) {
            mr.buffer().put(i, (byte) (i * 7 + 1));
        }
        return mr;
    }

    private RocePacket next() throws Exception {
        RocePacket p = peer.receive();
        assertNotNull(p, "no packet from the requester");
        assertEquals(RawPeer.PEER_QPN, p.destQp);
        return p;
    }

    private long counter(VerbsCounter c) {
        return peer.qp.counters().get(c);
    }

    @Test
    void aWriteIsSegmentedAtTheMtuAcrossThePsnWrap() throws Exception {
        peer = RawPeer.withSqPsn(0xFFFFFF, 0, 0);
        IbvMr src = filled(3 * MTU);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 2 * MTU + 100));
        RocePacket first = next();
        assertEquals(RcOpcode.WRITE_FIRST, first.opcode);
        assertEquals(0xFFFFFF, first.psn);
        assertEquals(0x7000_0000_1000L, first.va);
        assertEquals(0x5EC2E7, first.rkey);
        assertEquals(2 * MTU + 100, first.dmaLength);
        assertEquals(MTU, first.payloadLength);
        assertEquals(1, first.buffer.get(first.payloadOffset));
        RocePacket middle = next();
        assertEquals(RcOpcode.WRITE_MIDDLE, middle.opcode);
        assertEquals(0, middle.psn);
        assertEquals(MTU, middle.payloadLength);
        assertEquals((byte) (MTU * 7 + 1), middle.buffer.get(middle.payloadOffset));
        RocePacket last = next();
        assertEquals(RcOpcode.WRITE_LAST, last.opcode);
        assertEquals(1, last.psn);
        assertEquals(100, last.payloadLength);
        assertTrue(last.ackReq, "the last packet asks for an ACK");
        assertEquals((byte) ((2 * MTU + 99) * 7 + 1),
                last.buffer.get(last.payloadOffset + 99));
        assertTrue(peer.quiet(30).isEmpty(), "nothing completes before the ACK");
        peer.ack(Aeth.ACK_UNLIMITED, 0); // acknowledges the first two packets only
        assertTrue(peer.quiet(30).isEmpty());
        peer.ack(Aeth.ACK_UNLIMITED, 1);
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, wc.status());
        assertEquals(IbvWcOpcode.RDMA_WRITE, wc.opcode());
        assertEquals(2 * MTU + 100, wc.byteLen());
        assertEquals(1, wc.wrId());
        assertEquals(0, counter(VerbsCounter.RETRANSMITTED_PACKETS));
    }

    @Test
    void aSendWithImmediateCarriesItInTheLastPacket() throws Exception {
        peer = RawPeer.withSqPsn(10, 0, 0);
        IbvMr src = filled(2 * MTU);
        IbvSendWr w = wr(2, IbvWrOpcode.SEND_WITH_IMM, src, 0, MTU + 1);
        w.sendFlags(IbvSendFlags.SIGNALED | IbvSendFlags.SOLICITED);
        peer.qp.postSend(w);
        RocePacket first = next();
        assertEquals(RcOpcode.SEND_FIRST, first.opcode);
        assertFalse(first.solicited);
        RocePacket last = next();
        assertEquals(RcOpcode.SEND_LAST_WITH_IMM, last.opcode);
        assertEquals(0x1234ABCD, last.imm);
        assertTrue(last.solicited);
        assertEquals(1, last.payloadLength);
        peer.qp.postSend(wr(3, IbvWrOpcode.RDMA_WRITE_WITH_IMM, src, 0, 8));
        RocePacket only = next();
        assertEquals(RcOpcode.WRITE_ONLY_WITH_IMM, only.opcode);
        assertEquals(12, only.psn);
        assertEquals(0x1234ABCD, only.imm);
        assertFalse(only.solicited);
        peer.qp.postSend(wr(4, IbvWrOpcode.SEND, src, 0, 0).numSge(0));
        RocePacket empty = next();
        assertEquals(RcOpcode.SEND_ONLY, empty.opcode);
        assertEquals(13, empty.psn);
        assertEquals(0, empty.payloadLength);
        peer.ack(Aeth.ACK_UNLIMITED, 13); // one ACK completes all three, in order
        List<IbvWc> wcs = peer.expect(3);
        assertEquals(2, wcs.get(0).wrId());
        assertEquals(IbvWcOpcode.SEND, wcs.get(0).opcode());
        assertEquals(3, wcs.get(1).wrId());
        assertEquals(IbvWcOpcode.RDMA_WRITE, wcs.get(1).opcode());
        assertEquals(4, wcs.get(2).wrId());
        assertEquals(0, wcs.get(2).byteLen());
    }

    @Test
    void unsignaledWrsCompleteSilently() throws Exception {
        peer = RawPeer.withSqPsn(0, 0, 0);
        IbvMr src = filled(64);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 8).sendFlags(0));
        peer.qp.postSend(wr(2, IbvWrOpcode.RDMA_WRITE, src, 0, 8));
        next();
        next();
        peer.ack(Aeth.ACK_UNLIMITED, 1);
        List<IbvWc> wcs = peer.expect(1);
        assertEquals(2, wcs.get(0).wrId());
        assertTrue(peer.quiet(30).isEmpty());
    }

    @Test
    void ackNotForAnythingOutstandingIsDroppedAndCounted() throws Exception {
        peer = RawPeer.withSqPsn(100, 0, 0);
        IbvMr src = filled(64);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 8));
        assertEquals(100, next().psn);
        peer.ack(Aeth.ACK_UNLIMITED, 101); // never sent
        peer.ack(Aeth.ACK_UNLIMITED, 99); // before the oldest outstanding
        peer.ack(Aeth.NAK_INVALID_REQUEST, 101);
        waitFor(() -> counter(VerbsCounter.DROP_UNEXPECTED_RESPONSE) == 3);
        assertTrue(peer.quiet(30).isEmpty());
        assertEquals(IbvQpState.RTS, peer.qp.state());
        peer.ack(0x40, 100); // reserved syndrome class
        waitFor(() -> counter(VerbsCounter.DROP_MALFORMED) == 1);
        assertEquals(IbvQpState.RTS, peer.qp.state());
        peer.ack(Aeth.ACK_UNLIMITED, 100);
        assertEquals(IbvWcStatus.SUCCESS, peer.expect(1).get(0).status());
        peer.ack(Aeth.ACK_UNLIMITED, 100); // a duplicate of the last ACK
        waitFor(() -> counter(VerbsCounter.DROP_UNEXPECTED_RESPONSE) == 4);
    }

    private void nakFails(int syndrome, IbvWcStatus status, VerbsCounter counted) throws Exception {
        peer = RawPeer.withSqPsn(7, 3, 3);
        IbvMr src = filled(64);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 8));
        peer.qp.postSend(wr(2, IbvWrOpcode.RDMA_WRITE, src, 0, 8));
        peer.qp.postSend(wr(3, IbvWrOpcode.RDMA_WRITE, src, 0, 8));
        next();
        next();
        next();
        peer.ack(syndrome, 8); // NAK at the second WR acknowledges the first
        List<IbvWc> wcs = peer.expect(3);
        assertEquals(IbvWcStatus.SUCCESS, wcs.get(0).status());
        assertEquals(status, wcs.get(1).status());
        assertEquals(2, wcs.get(1).wrId());
        assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(2).status());
        assertEquals(IbvQpState.ERR, peer.qp.state());
        assertEquals(1, counter(counted));
    }

    @Test
    void anInvalidRequestNakFailsTheWrWithRemInvReq() throws Exception {
        nakFails(Aeth.NAK_INVALID_REQUEST, IbvWcStatus.REM_INV_REQ_ERR,
                VerbsCounter.NAK_INVALID_RECEIVED);
    }

    @Test
    void anAccessNakFailsTheWrWithRemAccess() throws Exception {
        nakFails(Aeth.NAK_REMOTE_ACCESS, IbvWcStatus.REM_ACCESS_ERR,
                VerbsCounter.NAK_ACCESS_RECEIVED);
    }

    @Test
    void anOperationalNakFailsTheWrWithRemOp() throws Exception {
        nakFails(Aeth.NAK_REMOTE_OPERATIONAL, IbvWcStatus.REM_OP_ERR,
                VerbsCounter.NAK_INVALID_RECEIVED);
    }

    @Test
    void aSequenceNakGoesBackToItsPsnAndCountsRetransmissions() throws Exception {
        peer = RawPeer.withSqPsn(0xFFFFFE, 2, 0);
        IbvMr src = filled(4 * MTU);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 4 * MTU));
        for (int i = 0; i < 4; i++) {
            assertEquals(Psn.add(0xFFFFFE, i), next().psn);
        }
        peer.ack(Aeth.NAK_PSN_SEQUENCE, 0); // the third packet (PSN 0) was lost
        RocePacket again = next();
        assertEquals(0, again.psn);
        assertEquals(RcOpcode.WRITE_MIDDLE, again.opcode);
        assertEquals((byte) (2 * MTU * 7 + 1), again.buffer.get(again.payloadOffset),
                "resent from the right offset");
        RocePacket lastAgain = next();
        assertEquals(1, lastAgain.psn);
        assertEquals(RcOpcode.WRITE_LAST, lastAgain.opcode);
        assertEquals(1, counter(VerbsCounter.NAK_SEQ_RECEIVED));
        waitFor(() -> counter(VerbsCounter.RETRANSMITTED_PACKETS) == 2);
        peer.ack(Aeth.NAK_PSN_SEQUENCE, 0); // while going back to PSN 0: the same loss
        assertTrue(peer.silentFor(30), "no second go-back-N for one loss");
        peer.ack(Aeth.NAK_PSN_SEQUENCE, 1); // PSN 0 arrived, 1 did not: progress, then a retry
        RocePacket last = next();
        assertEquals(1, last.psn);
        assertEquals(RcOpcode.WRITE_LAST, last.opcode);
        assertTrue(peer.quiet(20).isEmpty());
        peer.ack(Aeth.ACK_UNLIMITED, 1);
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, wc.status());
        assertEquals(3, counter(VerbsCounter.NAK_SEQ_RECEIVED));
        assertEquals(3, counter(VerbsCounter.RETRANSMITTED_PACKETS));
    }

    @Test
    void rnrNaksWaitAndRetryUntilRnrRetryIsUsedUp() throws Exception {
        peer = RawPeer.withSqPsn(50, 0, 1);
        IbvMr src = filled(64);
        peer.qp.postSend(wr(1, IbvWrOpcode.SEND, src, 0, 8));
        assertEquals(50, next().psn);
        peer.ack(Aeth.RNR_NAK | 1, 50); // 10 us
        RocePacket again = next();
        assertEquals(50, again.psn);
        assertEquals(RcOpcode.SEND_ONLY, again.opcode);
        assertEquals(1, counter(VerbsCounter.RNR_NAK_RECEIVED));
        peer.ack(Aeth.RNR_NAK | 1, 50);
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(IbvWcStatus.RNR_RETRY_EXC_ERR, wc.status());
        assertEquals(2, counter(VerbsCounter.RNR_NAK_RECEIVED));
        assertEquals(IbvQpState.ERR, peer.qp.state());
    }

    @Test
    void rnrRetrySevenRetriesForeverAndProgressRestoresCounts() throws Exception {
        peer = RawPeer.withSqPsn(50, 0, 7);
        IbvMr src = filled(64);
        peer.qp.postSend(wr(1, IbvWrOpcode.SEND, src, 0, 8));
        assertEquals(50, next().psn);
        for (int i = 0; i < 5; i++) {
            peer.ack(Aeth.RNR_NAK | 1, 50);
            assertEquals(50, next().psn);
        }
        peer.ack(Aeth.ACK_UNLIMITED, 50);
        assertEquals(IbvWcStatus.SUCCESS, peer.expect(1).get(0).status());
        assertEquals(5, counter(VerbsCounter.RNR_NAK_RECEIVED));
    }

    @Test
    void anRnrNakAtALaterPsnAcknowledgesTheEarlierOnes() throws Exception {
        peer = RawPeer.withSqPsn(50, 0, 1);
        IbvMr src = filled(64);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 8));
        peer.qp.postSend(wr(2, IbvWrOpcode.SEND, src, 0, 8));
        assertEquals(50, next().psn);
        assertEquals(51, next().psn);
        peer.ack(Aeth.RNR_NAK | 1, 51);
        assertEquals(1, peer.expect(1).get(0).wrId());
        assertEquals(51, next().psn, "only the NAKed SEND goes again");
        peer.ack(Aeth.ACK_UNLIMITED, 51);
        assertEquals(2, peer.expect(1).get(0).wrId());
    }

    @Test
    void aReadIsRequestedInSegmentsAndItsResponsesLandInOrder() throws Exception {
        peer = new RawPeer(b -> b.readSegmentPackets(2), new IbvQpAttr().sqPsn(0xFFFFFF)
                .timeout(0).retryCnt(1).rnrRetry(0).maxRdAtomic(4), 0, 4, 1);
        IbvMr dst = peer.mr(5 * MTU, IbvAccess.ALL);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_READ, dst, 0, 5 * MTU - 24));
        RocePacket r1 = next();
        assertEquals(RcOpcode.READ_REQUEST, r1.opcode);
        assertEquals(0xFFFFFF, r1.psn);
        assertTrue(r1.ackReq);
        assertEquals(2 * MTU, r1.dmaLength);
        assertEquals(0x7000_0000_1000L, r1.va);
        RocePacket r2 = next();
        assertEquals(1, r2.psn, "two response PSNs later, across the wrap");
        assertEquals(2 * MTU, r2.dmaLength);
        assertEquals(0x7000_0000_1000L + 2 * MTU, r2.va);
        RocePacket r3 = next();
        assertEquals(3, r3.psn);
        assertEquals(MTU - 24, r3.dmaLength);
        int[] ops = {RcOpcode.READ_RESPONSE_FIRST, RcOpcode.READ_RESPONSE_LAST,
            RcOpcode.READ_RESPONSE_FIRST, RcOpcode.READ_RESPONSE_LAST, RcOpcode.READ_RESPONSE_ONLY};
        for (int k = 0; k < 5; k++) {
            int len = k == 4 ? MTU - 24 : MTU;
            boolean aeth = (RcOpcode.flags(ops[k]) & RcOpcode.AETH) != 0;
            peer.builder.begin(ops[k], false, peer.qp.qpNum(), false, Psn.add(0xFFFFFF, k), len);
            if (aeth) {
                peer.builder.aeth(Aeth.ACK_UNLIMITED, 0);
            }
            for (int i = 0; i < len; i++) {
                peer.builder.buffer().put(peer.builder.payloadOffset() + i, (byte) (k + 1));
            }
            if (k == 4) {
                assertTrue(peer.quiet(20).isEmpty(), "no completion before the last response");
            }
            peer.send();
        }
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, wc.status());
        assertEquals(IbvWcOpcode.RDMA_READ, wc.opcode());
        assertEquals(5 * MTU - 24, wc.byteLen());
        for (int k = 0; k < 5; k++) {
            assertEquals(k + 1, dst.buffer().get(k * MTU), "response " + k);
        }
        assertEquals(5, dst.buffer().get(5 * MTU - 25));
        assertEquals(0, dst.buffer().get(5 * MTU - 24), "nothing past the READ");
    }

    private void readResponse(int op, int psn, int len) throws Exception {
        peer.builder.begin(op, false, peer.qp.qpNum(), false, psn, len);
        if ((RcOpcode.flags(op) & RcOpcode.AETH) != 0) {
            peer.builder.aeth(Aeth.ACK_UNLIMITED, 0);
        }
        peer.send();
    }

    @Test
    void readResponsesOfTheWrongSizeOrPlaceAreDropped() throws Exception {
        peer = RawPeer.withSqPsn(20, 1, 0);
        IbvMr dst = peer.mr(2 * MTU, IbvAccess.ALL);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_READ, dst, 0, MTU + 10));
        assertEquals(20, next().psn);
        readResponse(RcOpcode.READ_RESPONSE_FIRST, 20, MTU - 4);
        waitFor(() -> counter(VerbsCounter.DROP_MALFORMED) == 1);
        readResponse(RcOpcode.READ_RESPONSE_LAST, 22, 10); // beyond the READ
        waitFor(() -> counter(VerbsCounter.DROP_UNEXPECTED_RESPONSE) == 1);
        readResponse(RcOpcode.READ_RESPONSE_FIRST, 19, MTU); // before it
        waitFor(() -> counter(VerbsCounter.DROP_UNEXPECTED_RESPONSE) == 2);
        readResponse(RcOpcode.READ_RESPONSE_FIRST, 20, MTU);
        readResponse(RcOpcode.READ_RESPONSE_LAST, 21, 12);
        waitFor(() -> counter(VerbsCounter.DROP_MALFORMED) == 2);
        readResponse(RcOpcode.READ_RESPONSE_LAST, 21, 10);
        assertEquals(IbvWcStatus.SUCCESS, peer.expect(1).get(0).status());
        readResponse(RcOpcode.READ_RESPONSE_ONLY, 21, 10); // a duplicate
        waitFor(() -> counter(VerbsCounter.DROP_UNEXPECTED_RESPONSE) == 3);
    }

    @Test
    void aLaterReadResponseImpliesTheEarlierWritesAndALostResponse() throws Exception {
        peer = RawPeer.withSqPsn(30, 1, 0);
        IbvMr mem = filled(4 * MTU);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, mem, 0, 8));
        peer.qp.postSend(wr(2, IbvWrOpcode.RDMA_READ, mem, MTU, 2 * MTU));
        assertEquals(30, next().psn);
        assertEquals(31, next().psn);
        readResponse(RcOpcode.READ_RESPONSE_LAST, 32, MTU); // the FIRST response was lost
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(1, wc.wrId(), "the WRITE before the READ is acknowledged");
        RocePacket again = next();
        assertEquals(RcOpcode.READ_REQUEST, again.opcode);
        assertEquals(31, again.psn, "the READ is requested again");
        assertEquals(1, counter(VerbsCounter.DROP_PSN_OUT_OF_WINDOW));
        readResponse(RcOpcode.READ_RESPONSE_FIRST, 31, MTU);
        readResponse(RcOpcode.READ_RESPONSE_LAST, 32, MTU);
        assertEquals(2, peer.expect(1).get(0).wrId());
    }

    @Test
    void anAckPastAnUnansweredReadMeansItsResponsesWereLost() throws Exception {
        peer = RawPeer.withSqPsn(40, 1, 0);
        IbvMr mem = filled(4 * MTU);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_READ, mem, 0, 16));
        peer.qp.postSend(wr(2, IbvWrOpcode.RDMA_WRITE, mem, 0, 8));
        assertEquals(40, next().psn);
        assertEquals(41, next().psn);
        peer.ack(Aeth.ACK_UNLIMITED, 41);
        RocePacket again = next();
        assertEquals(RcOpcode.READ_REQUEST, again.opcode);
        assertEquals(40, again.psn);
        assertTrue(peer.quiet(20).isEmpty(), "neither WR is complete");
        readResponse(RcOpcode.READ_RESPONSE_ONLY, 40, 16);
        assertEquals(1, peer.expect(1).get(0).wrId());
    }

    @Test
    void maxRdAtomicLimitsOutstandingReadsAndAFenceWaitsForThem() throws Exception {
        peer = new RawPeer(b -> b, new IbvQpAttr().sqPsn(0).timeout(0).retryCnt(0).rnrRetry(0)
                .maxRdAtomic(1), 0, 4, 1);
        IbvMr mem = filled(4 * MTU);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_READ, mem, 0, 16));
        peer.qp.postSend(wr(2, IbvWrOpcode.RDMA_READ, mem, 16, 16));
        IbvSendWr fenced = wr(3, IbvWrOpcode.RDMA_WRITE, mem, 0, 8);
        fenced.sendFlags(IbvSendFlags.SIGNALED | IbvSendFlags.FENCE);
        peer.qp.postSend(fenced);
        assertEquals(0, next().psn);
        assertTrue(peer.silentFor(30), "a second READ would exceed max_rd_atomic 1");
        readResponse(RcOpcode.READ_RESPONSE_ONLY, 0, 16);
        RocePacket second = next();
        assertEquals(RcOpcode.READ_REQUEST, second.opcode);
        assertEquals(1, second.psn);
        assertTrue(peer.silentFor(30), "the fenced WRITE waits for the READ");
        readResponse(RcOpcode.READ_RESPONSE_ONLY, 1, 16);
        RocePacket write = next();
        assertEquals(RcOpcode.WRITE_ONLY, write.opcode);
        assertEquals(2, write.psn);
        peer.ack(Aeth.ACK_UNLIMITED, 2);
        assertEquals(3, peer.expect(3).get(2).wrId());
    }

    @Test
    void theWindowAndTheAckRequestIntervalPaceTransmission() throws Exception {
        peer = new RawPeer(b -> b.windowPackets(8).ackRequestInterval(3), new IbvQpAttr()
                .sqPsn(0).timeout(0).retryCnt(0).rnrRetry(0).maxRdAtomic(1), 0, 4, 1);
        IbvMr mem = filled(12 * MTU);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, mem, 0, 12 * MTU));
        StringBuilder ackReq = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            RocePacket p = next();
            assertEquals(i, p.psn);
            ackReq.append(p.ackReq ? 'A' : '-');
        }
        assertTrue(peer.silentFor(30), "a window of 8 packets");
        peer.ack(Aeth.ACK_UNLIMITED, 1);
        for (int i = 8; i < 10; i++) {
            RocePacket p = next();
            assertEquals(i, p.psn);
            ackReq.append(p.ackReq ? 'A' : '-');
        }
        assertTrue(peer.silentFor(30));
        peer.ack(Aeth.ACK_UNLIMITED, 9);
        for (int i = 10; i < 12; i++) {
            RocePacket p = next();
            assertEquals(i, p.psn);
            ackReq.append(p.ackReq ? 'A' : '-');
        }
        assertEquals("--A--A--A--A", ackReq.toString(), "AckReq on every third packet");
        assertTrue(peer.quiet(20).isEmpty());
        peer.ack(Aeth.ACK_UNLIMITED, 11);
        assertEquals(12 * MTU, peer.expect(1).get(0).byteLen());
    }

    @Test
    void aSmallWindowCapsTheAckRequestIntervalAndTheReadSegment() throws Exception {
        // defaults: AckReq every 32 packets, READ segments of 32 packets; a window of 8 halves
        // the first to 4 and caps the second at 8
        peer = new RawPeer(b -> b.windowPackets(8), new IbvQpAttr().sqPsn(0).timeout(0)
                .retryCnt(0).rnrRetry(0).maxRdAtomic(4), 0, 4, 1);
        IbvMr mem = filled(12 * MTU);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_WRITE, mem, 0, 8 * MTU));
        StringBuilder ackReq = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            ackReq.append(next().ackReq ? 'A' : '-');
        }
        assertEquals("---A---A", ackReq.toString());
        peer.ack(Aeth.ACK_UNLIMITED, 7);
        assertEquals(IbvWcStatus.SUCCESS, peer.expect(1).get(0).status());
        peer.qp.postSend(wr(2, IbvWrOpcode.RDMA_READ, mem, 0, 12 * MTU));
        RocePacket r1 = next();
        assertEquals(8, r1.psn);
        assertEquals(8 * MTU, r1.dmaLength);
        assertTrue(peer.silentFor(30), "the window is full");
    }

    @Test
    void aBadLocalKeyFailsTheWrWithALocalProtectionError() throws Exception {
        peer = RawPeer.withSqPsn(0, 0, 0);
        IbvMr mem = filled(64);
        IbvSendWr bad = wr(1, IbvWrOpcode.RDMA_WRITE, mem, 0, 8);
        bad.sge(0).lkey(mem.lkey() + 1);
        peer.qp.postSend(bad);
        peer.qp.postSend(wr(2, IbvWrOpcode.RDMA_WRITE, mem, 0, 8));
        List<IbvWc> wcs = peer.expect(2);
        assertEquals(IbvWcStatus.LOC_PROT_ERR, wcs.get(0).status());
        assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(1).status());
        assertTrue(peer.silentFor(20), "nothing was sent");
        assertEquals(IbvQpState.ERR, peer.qp.state());
    }

    @Test
    void aReadIntoMemoryWithoutLocalWriteIsAProtectionError() throws Exception {
        peer = RawPeer.withSqPsn(0, 0, 0);
        IbvMr readOnly = peer.mr(64, IbvAccess.REMOTE_READ);
        peer.qp.postSend(wr(1, IbvWrOpcode.RDMA_READ, readOnly, 0, 8));
        assertEquals(IbvWcStatus.LOC_PROT_ERR, peer.expect(1).get(0).status());
        assertTrue(peer.silentFor(20), "nothing was sent");
    }

    @Test
    void anSgePastTheRegionEndIsAProtectionError() throws Exception {
        peer = RawPeer.withSqPsn(0, 0, 0);
        IbvMr mem = filled(64);
        assertEquals(IbvWcStatus.LOC_PROT_ERR, postAndComplete(wr(1, IbvWrOpcode.SEND, mem, 60,
                8)));
        assertTrue(peer.silentFor(20));
    }

    private IbvWcStatus postAndComplete(IbvSendWr w) throws Exception {
        peer.qp.postSend(w);
        return peer.expect(1).get(0).status();
    }

    @Test
    void inlineDataIsSentFromTheCopy() throws Exception {
        peer = RawPeer.withSqPsn(0, 0, 0);
        IbvMr mem = filled(64);
        IbvSendWr w = wr(1, IbvWrOpcode.SEND, mem, 4, 16);
        w.sendFlags(IbvSendFlags.SIGNALED | IbvSendFlags.INLINE);
        peer.qp.postSend(w);
        mem.buffer().put(4, (byte) 99);
        RocePacket p = next();
        assertEquals(16, p.payloadLength);
        assertEquals((byte) (4 * 7 + 1), p.buffer.get(p.payloadOffset));
        assertEquals((byte) (19 * 7 + 1), p.buffer.get(p.payloadOffset + 15));
    }

    static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("condition not reached in 5 s");
            }
            Thread.sleep(1);
        }
    }
}
