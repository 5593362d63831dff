package dev.virtuoso.verbs.soft.rnic;

import static dev.virtuoso.verbs.soft.rnic.RequesterPacketsTest.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.Psn;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * The responder packet by packet: a {@link RawPeer} sends hand-built requests to the QP and reads
 * its ACKs, NAKs and READ responses. Covers in-order acceptance across the PSN wrap, one
 * NAK-sequence per gap, duplicates, length and opcode-sequence errors, access checks, RNR NAKs
 * with the QP's timer code, READ responses and their replay, and max_dest_rd_atomic.
 */
class ResponderPacketsTest {
    private static final int MTU = RawPeer.MTU;
    private static final int RQ_PSN = 0xFFFFFE;
    private RawPeer peer;

    @AfterEach
    void tearDown() {
        if (peer != null) {
            peer.close();
        }
    }

    private void open(int maxDestRdAtomic) throws Exception {
        peer = new RawPeer(b -> b, new IbvQpAttr().sqPsn(0).timeout(0).retryCnt(0).rnrRetry(0)
                .maxRdAtomic(1), RQ_PSN, maxDestRdAtomic, 9);
    }

    private long counter(VerbsCounter c) {
        return peer.qp.counters().get(c);
    }

    private RocePacket next() throws Exception {
        RocePacket p = peer.receive();
        assertNotNull(p, "no response from the responder");
        assertEquals(RawPeer.PEER_QPN, p.destQp);
        return p;
    }

    private RocePacket expectAck(int syndrome, int psn) throws Exception {
        RocePacket p = next();
        assertEquals(RcOpcode.ACKNOWLEDGE, p.opcode);
        assertEquals(syndrome, p.syndrome, "syndrome");
        assertEquals(psn, p.psn, "PSN");
        return p;
    }

    private void request(int op, int psn, boolean ackReq, int len, byte fill) throws Exception {
        peer.builder.begin(op, false, peer.qp.qpNum(), ackReq, psn, len);
        for (int i = 0; i < len; i++) {
            peer.builder.buffer().put(peer.builder.payloadOffset() + i, fill);
        }
    }

    private void write(int op, int psn, boolean ackReq, int len, IbvMr mr, long va, int dmaLen)
            throws Exception {
        request(op, psn, ackReq, len, (byte) psn);
        if ((RcOpcode.flags(op) & RcOpcode.RETH) != 0) {
            peer.builder.reth(va, mr.rkey(), dmaLen);
        }
        if ((RcOpcode.flags(op) & RcOpcode.IMM) != 0) {
            peer.builder.imm(0x0BADF00D);
        }
        peer.send();
    }

    private void postRecv(long id, IbvMr mr, int len) throws Exception {
        IbvRecvWr r = new IbvRecvWr(2).wrId(id).numSge(1);
        r.sge(0).set(mr.address(), len, mr.lkey());
        peer.qp.postRecv(r);
    }

    @Test
    void writesAreAcceptedInOrderAcrossThePsnWrapAndAckedWhenAsked() throws Exception {
        open(4);
        IbvMr mr = peer.mr(4 * MTU, IbvAccess.ALL);
        write(RcOpcode.WRITE_FIRST, RQ_PSN, false, MTU, mr, mr.address() + 8, 3 * MTU);
        write(RcOpcode.WRITE_MIDDLE, Psn.next(RQ_PSN), false, MTU, mr, 0, 0);
        assertTrue(peer.silentFor(30), "no ACK without AckReq");
        write(RcOpcode.WRITE_LAST, 0, true, MTU, mr, 0, 0);
        RocePacket ack = expectAck(Aeth.ACK_UNLIMITED, 0);
        assertEquals(1, ack.msn, "one message completed");
        assertEquals((byte) RQ_PSN, mr.buffer().get(8));
        assertEquals((byte) Psn.next(RQ_PSN), mr.buffer().get(8 + MTU));
        assertEquals(0, mr.buffer().get(8 + 3 * MTU - 1));
        assertEquals(0, mr.buffer().get(7), "nothing before the VA");
        assertEquals(0, mr.buffer().get(8 + 3 * MTU), "nothing after the message");
        assertTrue(peer.quiet(20).isEmpty(), "a WRITE completes nothing at the responder");
        write(RcOpcode.WRITE_ONLY, 1, true, 0, mr, 0, 0); // zero-length WRITE, no memory
        RocePacket zero = expectAck(Aeth.ACK_UNLIMITED, 1);
        assertEquals(2, zero.msn);
    }

    @Test
    void aGapIsNakedOnceAndADuplicateIsReAcked() throws Exception {
        open(4);
        IbvMr mr = peer.mr(4 * MTU, IbvAccess.ALL);
        write(RcOpcode.WRITE_ONLY, RQ_PSN, true, 16, mr, mr.address(), 16);
        expectAck(Aeth.ACK_UNLIMITED, RQ_PSN);
        int expected = Psn.next(RQ_PSN);
        write(RcOpcode.WRITE_ONLY, Psn.add(RQ_PSN, 2), true, 16, mr, mr.address(), 16);
        expectAck(Aeth.NAK_PSN_SEQUENCE, expected);
        write(RcOpcode.WRITE_ONLY, Psn.add(RQ_PSN, 3), true, 16, mr, mr.address(), 16);
        assertTrue(peer.silentFor(30), "one NAK per gap");
        assertEquals(2, counter(VerbsCounter.DROP_PSN_OUT_OF_WINDOW));
        assertEquals(1, counter(VerbsCounter.NAK_SEQ_SENT));
        write(RcOpcode.WRITE_ONLY, RQ_PSN, true, 16, mr, mr.address(), 16);
        expectAck(Aeth.ACK_UNLIMITED, RQ_PSN);
        assertEquals(1, counter(VerbsCounter.DUPLICATE_REQUESTS));
        write(RcOpcode.WRITE_ONLY, expected, true, 16, mr, mr.address(), 16);
        expectAck(Aeth.ACK_UNLIMITED, expected);
        write(RcOpcode.WRITE_ONLY, Psn.add(RQ_PSN, 3), true, 16, mr, mr.address(), 16);
        expectAck(Aeth.NAK_PSN_SEQUENCE, Psn.add(RQ_PSN, 2)); // a new gap gets its own NAK
        assertEquals(IbvQpState.RTS, peer.qp.state());
    }

    @Test
    void aSendFillsTheReceiveAndCompletesItWithImmediate() throws Exception {
        open(4);
        IbvMr mr = peer.mr(4 * MTU, IbvAccess.ALL);
        postRecv(5, mr, 2 * MTU);
        request(RcOpcode.SEND_FIRST, RQ_PSN, false, MTU, (byte) 1);
        peer.send();
        request(RcOpcode.SEND_LAST_WITH_IMM, Psn.next(RQ_PSN), true, 4, (byte) 2);
        peer.builder.imm(0x0BADF00D);
        peer.send();
        expectAck(Aeth.ACK_UNLIMITED, Psn.next(RQ_PSN));
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(5, wc.wrId());
        assertEquals(IbvWcStatus.SUCCESS, wc.status());
        assertEquals(IbvWcOpcode.RECV, wc.opcode());
        assertEquals(MTU + 4, wc.byteLen());
        assertTrue(wc.hasImm());
        assertEquals(0x0BADF00D, wc.immData());
        assertEquals(RawPeer.PEER_QPN, wc.srcQp());
        assertEquals(1, mr.buffer().get(MTU - 1));
        assertEquals(2, mr.buffer().get(MTU + 3));
        assertEquals(0, mr.buffer().get(MTU + 4));
    }

    @Test
    void aSendWithoutAReceiveGetsAnRnrNakWithTheQpsTimer() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        request(RcOpcode.SEND_ONLY, RQ_PSN, true, 8, (byte) 3);
        peer.send();
        expectAck(Aeth.RNR_NAK | 9, RQ_PSN);
        assertEquals(1, counter(VerbsCounter.RNR_NAK_SENT));
        request(RcOpcode.SEND_ONLY, Psn.next(RQ_PSN), true, 8, (byte) 3);
        peer.send();
        assertTrue(peer.silentFor(30), "the RNR NAK stands for the gap behind it");
        postRecv(1, mr, 8);
        request(RcOpcode.SEND_ONLY, RQ_PSN, true, 8, (byte) 3);
        peer.send();
        expectAck(Aeth.ACK_UNLIMITED, RQ_PSN);
        assertEquals(8, peer.expect(1).get(0).byteLen());
    }

    @Test
    void aSendLongerThanTheReceiveFailsBothEnds() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        postRecv(1, mr, 8);
        postRecv(2, mr, 8);
        request(RcOpcode.SEND_ONLY, RQ_PSN, true, 12, (byte) 3);
        peer.send();
        expectAck(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
        List<IbvWc> wcs = peer.expect(2);
        assertEquals(IbvWcStatus.LOC_LEN_ERR, wcs.get(0).status());
        assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(1).status());
        assertEquals(IbvQpState.ERR, peer.qp.state());
        assertEquals(1, counter(VerbsCounter.NAK_INVALID_SENT));
    }

    @Test
    void aMiddlePacketWithoutAFirstIsAnInvalidRequest() throws Exception {
        open(4);
        request(RcOpcode.SEND_MIDDLE, RQ_PSN, true, MTU, (byte) 1);
        peer.send();
        expectAck(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
        waitFor(() -> peer.qp.state() == IbvQpState.ERR);
    }

    @Test
    void aShortMiddlePacketIsAnInvalidRequest() throws Exception {
        open(4);
        IbvMr mr = peer.mr(4 * MTU, IbvAccess.ALL);
        write(RcOpcode.WRITE_FIRST, RQ_PSN, false, MTU, mr, mr.address(), 3 * MTU);
        write(RcOpcode.WRITE_MIDDLE, Psn.next(RQ_PSN), false, MTU - 4, mr, 0, 0);
        expectAck(Aeth.NAK_INVALID_REQUEST, Psn.next(RQ_PSN));
    }

    @Test
    void aWriteFirstWhoseLengthFitsOnePacketIsAnInvalidRequest() throws Exception {
        open(4);
        IbvMr mr = peer.mr(4 * MTU, IbvAccess.ALL);
        write(RcOpcode.WRITE_FIRST, RQ_PSN, false, MTU, mr, mr.address(), MTU);
        expectAck(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
    }

    @Test
    void aWriteLastLongerThanTheRestIsAnInvalidRequest() throws Exception {
        open(4);
        IbvMr mr = peer.mr(4 * MTU, IbvAccess.ALL);
        write(RcOpcode.WRITE_FIRST, RQ_PSN, false, MTU, mr, mr.address(), MTU + 4);
        write(RcOpcode.WRITE_LAST, Psn.next(RQ_PSN), true, 8, mr, 0, 0);
        expectAck(Aeth.NAK_INVALID_REQUEST, Psn.next(RQ_PSN));
    }

    @Test
    void aWriteOutsideTheRegionIsARemoteAccessError() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        write(RcOpcode.WRITE_ONLY, RQ_PSN, true, 16, mr, mr.address() + MTU - 8, 16);
        expectAck(Aeth.NAK_REMOTE_ACCESS, RQ_PSN);
        assertEquals(1, counter(VerbsCounter.NAK_ACCESS_SENT));
        waitFor(() -> peer.qp.state() == IbvQpState.ERR);
        assertEquals(0, mr.buffer().get(MTU - 8), "nothing written");
    }

    @Test
    void aWriteToARegionWithoutRemoteWriteIsARemoteAccessError() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_READ);
        write(RcOpcode.WRITE_ONLY, RQ_PSN, true, 16, mr, mr.address(), 16);
        expectAck(Aeth.NAK_REMOTE_ACCESS, RQ_PSN);
    }

    @Test
    void aWriteWithImmediateConsumesAReceive() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        write(RcOpcode.WRITE_ONLY_WITH_IMM, RQ_PSN, true, 16, mr, mr.address(), 16);
        expectAck(Aeth.RNR_NAK | 9, RQ_PSN);
        postRecv(3, mr, 0);
        write(RcOpcode.WRITE_ONLY_WITH_IMM, RQ_PSN, true, 16, mr, mr.address(), 16);
        expectAck(Aeth.ACK_UNLIMITED, RQ_PSN);
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(3, wc.wrId());
        assertEquals(IbvWcOpcode.RECV_RDMA_WITH_IMM, wc.opcode());
        assertEquals(16, wc.byteLen());
        assertEquals(0x0BADF00D, wc.immData());
        assertEquals((byte) RQ_PSN, mr.buffer().get(15));
    }

    private void readRequest(int psn, IbvMr mr, long va, int len) throws Exception {
        peer.builder.begin(RcOpcode.READ_REQUEST, false, peer.qp.qpNum(), true, psn, 0)
                .reth(va, mr.rkey(), len);
        peer.send();
    }

    @Test
    void aReadIsAnsweredInMtuPacketsAndReplayedFromItsHistory() throws Exception {
        open(4);
        IbvMr mr = peer.mr(4 * MTU, IbvAccess.ALL);
        for (int i = 0; i < 4 * MTU; i++) {
            mr.buffer().put(i, (byte) (i / MTU + 1));
        }
        readRequest(RQ_PSN, mr, mr.address() + 4, 3 * MTU - 8);
        int[] ops = {RcOpcode.READ_RESPONSE_FIRST, RcOpcode.READ_RESPONSE_MIDDLE,
            RcOpcode.READ_RESPONSE_LAST};
        for (int k = 0; k < 3; k++) {
            RocePacket r = next();
            assertEquals(ops[k], r.opcode);
            assertEquals(Psn.add(RQ_PSN, k), r.psn);
            assertEquals(k == 2 ? MTU - 8 : MTU, r.payloadLength);
            assertEquals(k + 1, r.buffer.get(r.payloadOffset + 100));
        }
        write(RcOpcode.WRITE_ONLY, Psn.add(RQ_PSN, 3), true, 4, mr, mr.address(), 4);
        expectAck(Aeth.ACK_UNLIMITED, Psn.add(RQ_PSN, 3));
        // the second and third responses were lost: the requester asks again from the second
        readRequest(Psn.next(RQ_PSN), mr, mr.address() + 4 + MTU, 2 * MTU - 8);
        RocePacket again = next();
        assertEquals(RcOpcode.READ_RESPONSE_FIRST, again.opcode);
        assertEquals(Psn.next(RQ_PSN), again.psn);
        assertEquals(2, again.buffer.get(again.payloadOffset + 100));
        RocePacket last = next();
        assertEquals(RcOpcode.READ_RESPONSE_LAST, last.opcode);
        assertEquals(1, counter(VerbsCounter.DUPLICATE_REQUESTS));
        // a replay that does not match the original is dropped
        readRequest(Psn.next(RQ_PSN), mr, mr.address() + 8 + MTU, 2 * MTU - 8);
        waitFor(() -> counter(VerbsCounter.DROP_MALFORMED) == 1);
        assertTrue(peer.silentFor(30));
        readRequest(RQ_PSN, mr, mr.address() + 4, 3 * MTU);
        waitFor(() -> counter(VerbsCounter.DROP_MALFORMED) == 2);
    }

    @Test
    void aZeroLengthReadGetsOneEmptyResponse() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        readRequest(RQ_PSN, mr, 0, 0);
        RocePacket r = next();
        assertEquals(RcOpcode.READ_RESPONSE_ONLY, r.opcode);
        assertEquals(0, r.payloadLength);
        assertEquals(RQ_PSN, r.psn);
        assertEquals(1, r.msn);
    }

    @Test
    void aReadOfMemoryWithoutRemoteReadIsARemoteAccessError() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE);
        readRequest(RQ_PSN, mr, mr.address(), 8);
        expectAck(Aeth.NAK_REMOTE_ACCESS, RQ_PSN);
        assertEquals(1, counter(VerbsCounter.NAK_ACCESS_SENT));
    }

    @Test
    void aReadBeyondTwoGibibytesIsAnInvalidRequest() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        readRequest(RQ_PSN, mr, mr.address(), (int) ((1L << 31) + 1));
        expectAck(Aeth.NAK_INVALID_REQUEST, RQ_PSN);
    }

    @Test
    void readsBeyondMaxDestRdAtomicAreNaked() throws Exception {
        open(1);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        // the port is read in one batch only if both requests are queued before the engine looks
        readRequest(RQ_PSN, mr, mr.address(), 8);
        RocePacket first = next();
        assertEquals(RcOpcode.READ_RESPONSE_ONLY, first.opcode);
        readRequest(Psn.next(RQ_PSN), mr, mr.address(), 8);
        RocePacket second = next();
        assertEquals(RcOpcode.READ_RESPONSE_ONLY, second.opcode, "the first READ is done");
        assertEquals(0, counter(VerbsCounter.READ_RESOURCES_EXCEEDED));
    }

    @Test
    void aRequestInTheWrongStateIsDroppedAndCounted() throws Exception {
        open(4);
        IbvMr mr = peer.mr(MTU, IbvAccess.ALL);
        peer.qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        write(RcOpcode.WRITE_ONLY, RQ_PSN, true, 16, mr, mr.address(), 16);
        waitFor(() -> counter(VerbsCounter.DROP_BAD_STATE) == 1);
        peer.ack(Aeth.ACK_UNLIMITED, 0);
        waitFor(() -> counter(VerbsCounter.DROP_BAD_STATE) == 2);
        assertTrue(peer.silentFor(20));
    }

    @Test
    void sendsOnAnSrqQpTakeTheSharedReceivesInOrder() throws Exception {
        peer = new RawPeer(b -> b.sharedReceiveQueues(true), new IbvQpAttr().sqPsn(0).timeout(0)
                .retryCnt(0).rnrRetry(0).maxRdAtomic(1), RQ_PSN, 1, 2, true);
        IbvMr mr = peer.mr(64, IbvAccess.ALL);
        for (int i = 0; i < 2; i++) {
            IbvRecvWr r = new IbvRecvWr(2).wrId(40 + i).numSge(1);
            r.sge(0).set(mr.address() + 32 * i, 32, mr.lkey());
            peer.srq.postSrqRecv(r);
        }
        for (int i = 0; i < 3; i++) {
            request(RcOpcode.SEND_ONLY, Psn.add(RQ_PSN, i), true, 4, (byte) (i + 1));
            peer.send();
            expectAck(i < 2 ? Aeth.ACK_UNLIMITED : Aeth.RNR_NAK | 2, Psn.add(RQ_PSN, i));
        }
        List<IbvWc> wcs = peer.expect(2);
        assertEquals(40, wcs.get(0).wrId());
        assertEquals(41, wcs.get(1).wrId());
        assertEquals(1, mr.buffer().get(0));
        assertEquals(2, mr.buffer().get(32));
        peer.srq.close();
        org.junit.jupiter.api.Assertions.assertThrows(dev.virtuoso.spi.verbs.VerbsException.class,
                () -> peer.srq.postSrqRecv(new IbvRecvWr(1)));
    }
}
