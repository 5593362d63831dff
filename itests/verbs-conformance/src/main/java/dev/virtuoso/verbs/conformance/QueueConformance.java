package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/** Shared receive queues, completion channels, the QP state machine and PSN wrap-around. */
public abstract class QueueConformance extends ConformanceBase {
    static final int ALL = TransferConformance.ALL;

    @Test
    void srqIsConsumedFifoByEveryAttachedQp() throws Exception {
        // no silent skip: the capability is the device's own report, checked by
        // deviceReportsItsSrqCapabilityTruthfully; what the core does without SRQ is tested by
        // privateReceiveQueuesAreFifoPerQpAndFlushedInOrder on every device
        IbvDeviceAttr attr = rig.b.queryDevice();
        assumeTrue(attr.maxSrq() != 0, () -> env.name() + " reports max_srq = 0 (no shared receive queues):"
                + " the core gives every path QP its own receive queue instead, tested here by"
                + " privateReceiveQueuesAreFifoPerQpAndFlushedInOrder");
        IbvSrq srq = rig.own(rig.pdB.createSrq(64, 1));
        QpPair p1 = rig.connect(new QpSettings(), srq);
        QpPair p2 = rig.connect(new QpSettings(), srq);
        int n = 16;
        int size = rig.mtu() + 5;
        Mem dst = rig.mem(rig.pdB, n * size, ALL);
        for (int i = 0; i < n; i++) {
            srq.postSrqRecv(Rig.recv(i, dst, i * size, size));
        }
        Mem src = rig.mem(rig.pdA, size, ALL);
        for (int i = 0; i < n; i++) {
            IbvQp from = (i % 3 == 0 ? p2 : p1).a();
            src.fill((byte) (from == p1.a() ? 1 : 2));
            // wait for each send so the pattern in src is not overwritten while in flight
            from.postSend(Rig.wr(i, IbvWrOpcode.SEND_WITH_IMM, src, 0, size, null, 0).immData(i));
            assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        }
        List<IbvWc> rc = Rig.expect(rig.cqB, n);
        Map<Integer, Integer> lastImm = new HashMap<>();
        for (int i = 0; i < n; i++) {
            IbvWc wc = rc.get(i);
            assertEquals(IbvWcStatus.SUCCESS, wc.status());
            assertEquals(i, wc.wrId(), "SRQ must be consumed in posting order");
            assertTrue(wc.qpNum() == p1.b().qpNum() || wc.qpNum() == p2.b().qpNum());
            byte expected = (byte) (wc.qpNum() == p1.b().qpNum() ? 1 : 2);
            assertTrue(dst.all((int) wc.wrId() * size, size, expected),
                    "receive " + i + " holds another QP's data");
            Integer prev = lastImm.put(wc.qpNum(), wc.immData());
            assertTrue(prev == null || prev < wc.immData(), "per-QP order");
        }
    }

    /**
     * The core's small MP_SEND into a remotely writable buffer: an RDMA WRITE with immediate takes
     * one receive WQE (from the SRQ if the device has one, else from the QP's own receive queue),
     * leaves the WQE's memory untouched, and its completion reports the WRITE's length, not the
     * WQE's (as rxe reports it: the RETH length), here longer than the WQE's buffer.
     */
    @Test
    void aWriteWithImmediateTakesAReceiveWqeAndReportsTheWriteLength() throws Exception {
        IbvSrq srq = rig.b.queryDevice().maxSrq() != 0 ? rig.own(rig.pdB.createSrq(8, 1)) : null;
        QpPair p = rig.connect(new QpSettings(), srq);
        int wqeBytes = 64;
        int size = 2 * rig.mtu() + 5;
        Mem slot = rig.mem(rig.pdB, wqeBytes, ALL).fill((byte) 0x3C);
        if (srq != null) {
            srq.postSrqRecv(Rig.recv(5, slot, 0, wqeBytes));
        } else {
            p.b().postRecv(Rig.recv(5, slot, 0, wqeBytes));
        }
        Mem target = rig.mem(rig.pdB, size, ALL).fill((byte) 0x5A);
        Mem src = rig.mem(rig.pdA, size, ALL).fillRandom(size);
        p.a().postSend(Rig.wr(9, IbvWrOpcode.RDMA_WRITE_WITH_IMM, src, 0, size, target, 0).immData(0x7000_0001));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        IbvWc rc = Rig.expect(rig.cqB, 1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, rc.status(), rc.toString());
        assertEquals(5, rc.wrId());
        assertEquals(IbvWcOpcode.RECV_RDMA_WITH_IMM, rc.opcode());
        assertEquals(size, rc.byteLen(), "byte_len is the WRITE's length");
        assertTrue(rc.hasImm());
        assertEquals(0x7000_0001, rc.immData());
        assertEquals(-1, target.mismatch(0, src, 0, size), "data differs");
        assertTrue(slot.all(0, wqeBytes, (byte) 0x3C), "the receive WQE's memory was written");
    }

    @Test
    void deviceReportsItsSrqCapabilityTruthfully() throws Exception {
        IbvDeviceAttr attr = rig.b.queryDevice();
        assertTrue(attr.maxSge() != 0 && attr.maxQpWr() != 0 && attr.maxCqe() != 0, attr.toString());
        if (attr.maxSrq() == 0) {
            VerbsException e = assertThrows(VerbsException.class, () -> rig.own(rig.pdB.createSrq(16, 1)),
                    "max_srq = 0 but createSrq worked: " + attr);
            assertEquals(VerbsException.EOPNOTSUPP, e.errno(), e.getMessage());
            assertEquals(0, attr.maxSrqWr(), attr.toString());
        } else {
            assertTrue(attr.maxSrqWr() != 0 && attr.maxSrqSge() != 0, attr.toString());
            rig.own(rig.pdB.createSrq(16, 1));
        }
    }

    /**
     * Private receive queues, as the core uses them on a device without SRQ: each QP consumes its
     * own receives in posting order with its own data, and when one QP fails its receives still
     * posted complete with WR_FLUSH_ERR in posting order (so their buffers can be accounted for)
     * while the other QP keeps receiving.
     */
    @Test
    void privateReceiveQueuesAreFifoPerQpAndFlushedInOrder() throws Exception {
        QpPair p1 = rig.connect(new QpSettings());
        QpPair p2 = rig.connect(new QpSettings());
        int n = 8;
        int size = rig.mtu() + 5;
        Mem dst = rig.mem(rig.pdB, 2 * n * size, ALL);
        for (int i = 0; i < n; i++) {
            p1.b().postRecv(Rig.recv(100 + i, dst, i * size, size));
            p2.b().postRecv(Rig.recv(200 + i, dst, (n + i) * size, size));
        }
        Mem src = rig.mem(rig.pdA, size, ALL);
        for (int i = 0; i < n / 2; i++) {
            for (QpPair p : new QpPair[] {p1, p2}) {
                src.fill((byte) (p == p1 ? 1 : 2));
                p.a().postSend(Rig.wr(i, IbvWrOpcode.SEND, src, 0, size, null, 0));
                assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
            }
        }
        List<IbvWc> rc = Rig.expect(rig.cqB, n);
        int next1 = 100;
        int next2 = 200;
        for (IbvWc wc : rc) {
            assertEquals(IbvWcStatus.SUCCESS, wc.status(), wc.toString());
            boolean first = wc.qpNum() == p1.b().qpNum();
            assertTrue(first || wc.qpNum() == p2.b().qpNum(), wc.toString());
            assertEquals(first ? next1++ : next2++, wc.wrId(), "each QP consumes its own receives in order");
            int slot = (int) wc.wrId() % 100 + (first ? 0 : n);
            assertTrue(dst.all(slot * size, size, (byte) (first ? 1 : 2)), "receive " + wc.wrId() + " holds "
                    + "another QP's data");
        }
        // p1's B end fails: its four receives left are flushed, in posting order
        p1.b().modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        List<IbvWc> flushed = Rig.expect(rig.cqB, n / 2);
        for (int i = 0; i < n / 2; i++) {
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, flushed.get(i).status(), flushed.get(i).toString());
            assertEquals(100 + n / 2 + i, flushed.get(i).wrId(), "flushed in posting order");
            assertEquals(p1.b().qpNum(), flushed.get(i).qpNum());
        }
        // p2 is unaffected
        src.fill((byte) 2);
        p2.a().postSend(Rig.wr(99, IbvWrOpcode.SEND, src, 0, size, null, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        IbvWc last = Rig.expect(rig.cqB, 1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, last.status(), last.toString());
        assertEquals(200 + n / 2, last.wrId());
    }

    @Test
    void completionChannelFiresOncePerArming() throws Exception {
        IbvCompChannel ch = rig.own(rig.a.createCompChannel());
        IbvCq cq = rig.own(rig.a.createCq(64, ch));
        IbvQp qa = rig.createQp(rig.pdA, cq, null, new QpSettings());
        IbvQp qb = rig.createQp(rig.pdB, rig.cqB, null, new QpSettings());
        QpSettings s = new QpSettings();
        rig.toRts(qa, rig.b, qb.qpNum(), 100, 200, s);
        rig.toRts(qb, rig.a, qa.qpNum(), 200, 100, s);
        Mem local = rig.mem(rig.pdA, 64, ALL);
        Mem remote = rig.mem(rig.pdB, 64, ALL);
        assertNull(ch.getCqEvent(20, TimeUnit.MILLISECONDS), "event without arming");
        cq.reqNotifyCq(false);
        qa.postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, local, 0, 64, remote, 0));
        assertSame(cq, ch.getCqEvent(5, TimeUnit.SECONDS));
        cq.ackCqEvents(1);
        assertEquals(1, Rig.expect(cq, 1).get(0).wrId());
        // one-shot: a second completion without re-arming fires nothing
        qa.postSend(Rig.wr(2, IbvWrOpcode.RDMA_WRITE, local, 0, 64, remote, 0));
        assertEquals(2, Rig.expect(cq, 1).get(0).wrId());
        assertNull(ch.getCqEvent(50, TimeUnit.MILLISECONDS), "event without re-arming");
        cq.reqNotifyCq(true);
        qa.postSend(Rig.wr(3, IbvWrOpcode.RDMA_WRITE, local, 0, 64, remote, 0));
        assertEquals(3, Rig.expect(cq, 1).get(0).wrId());
        assertNull(ch.getCqEvent(50, TimeUnit.MILLISECONDS), "solicited-only fired for a WRITE");
    }

    /**
     * A CQ can be created on, and destroyed off, a channel while another thread waits on it (the
     * engine has one waiter per shared channel and makes connections' CQs meanwhile). The waiter's
     * single wait is longer than the bound, so an implementation whose create or destroy waits for
     * the waiter fails here.
     */
    @Test
    void cqsComeAndGoWhileAnotherThreadWaitsOnTheChannel() throws Exception {
        IbvCompChannel ch = rig.own(rig.a.createCompChannel());
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread waiter = new Thread(() -> {
            while (!stop.get()) {
                try {
                    ch.getCqEvent(30, TimeUnit.SECONDS);
                } catch (VerbsException | InterruptedException e) {
                    return;
                }
            }
        }, "conformance-channel-waiter");
        waiter.setDaemon(true);
        waiter.start();
        try {
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
                Thread.sleep(50); // let the waiter enter its wait
                for (int i = 0; i < 8; i++) {
                    IbvCq cq = rig.a.createCq(16, ch);
                    cq.reqNotifyCq(false);
                    cq.close();
                }
            }, "CQ create/destroy blocked by the channel's waiter");
        } finally {
            stop.set(true);
            waiter.interrupt();
            waiter.join(5000);
        }
        assertTrue(!waiter.isAlive(), "the waiter noticed its interrupt");
    }

    @Test
    void errorCompletionFiresASolicitedOnlyArming() throws Exception {
        assumeSupported(Feature.ERROR_COMPLETION_IS_SOLICITED);
        IbvCompChannel ch = rig.own(rig.a.createCompChannel());
        IbvCq cq = rig.own(rig.a.createCq(64, ch));
        IbvQp qa = rig.createQp(rig.pdA, cq, null, new QpSettings());
        IbvQp qb = rig.createQp(rig.pdB, rig.cqB, null, new QpSettings());
        QpSettings s = new QpSettings();
        rig.toRts(qa, rig.b, qb.qpNum(), 100, 200, s);
        rig.toRts(qb, rig.a, qa.qpNum(), 200, 100, s);
        Mem local = rig.mem(rig.pdA, 64, ALL);
        Mem remote = rig.mem(rig.pdB, 64, ALL);
        cq.reqNotifyCq(true);
        // an error completion is always solicited (IBA 11.4.2.2)
        qa.postSend(Rig.wr(4, IbvWrOpcode.RDMA_WRITE, local, 0, 64, remote, 0).rkey(12345));
        assertSame(cq, ch.getCqEvent(5, TimeUnit.SECONDS));
        cq.ackCqEvents(1);
        assertEquals(IbvWcStatus.REM_ACCESS_ERR, Rig.expect(cq, 1).get(0).status());
    }

    @Test
    void stateMachineRejectsIllegalTransitionsAndMissingAttributes() throws Exception {
        QpSettings s = new QpSettings();
        IbvQp qp = rig.createQp(rig.pdA, rig.cqA, null, s);
        assertEquals(IbvQpState.RESET, qp.state());
        Mem m = rig.mem(rig.pdA, 64, ALL);
        VerbsException e = assertThrows(VerbsException.class,
                () -> qp.postSend(Rig.wr(1, IbvWrOpcode.SEND, m, 0, 8, null, 0)));
        assertEquals(VerbsException.EINVAL, e.errno());
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).destQpNum(5);
        rtr.ahAttr().dgid(rig.b.vnics().get(0).address()).sgidIndex(Rig.sgidIndex(rig.a));
        e = assertThrows(VerbsException.class, () -> qp.modifyQp(rtr, IbvQpAttr.MASK_RTR));
        assertEquals(VerbsException.EINVAL, e.errno(), "RESET -> RTR");
        IbvQpAttr init = new IbvQpAttr().qpState(IbvQpState.INIT).qpAccessFlags(ALL);
        e = assertThrows(VerbsException.class,
                () -> qp.modifyQp(init, IbvQpAttr.STATE | IbvQpAttr.ACCESS_FLAGS));
        assertEquals(VerbsException.EINVAL, e.errno(), "INIT without PORT and PKEY_INDEX");
        qp.modifyQp(init, IbvQpAttr.MASK_INIT);
        assertEquals(IbvQpState.INIT, qp.state());
        e = assertThrows(VerbsException.class,
                () -> qp.modifyQp(rtr, IbvQpAttr.MASK_RTR & ~IbvQpAttr.AV));
        assertEquals(VerbsException.EINVAL, e.errno(), "RTR without AV");
        assertEquals(IbvQpState.INIT, qp.state());
        rtr.ahAttr().udpPort(rig.b.udpPort());
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        IbvQpAttr rts = new IbvQpAttr().qpState(IbvQpState.RTS).retryCnt(8);
        e = assertThrows(VerbsException.class, () -> qp.modifyQp(rts, IbvQpAttr.MASK_RTS));
        assertEquals(VerbsException.EINVAL, e.errno(), "retry_cnt 8");
        rts.retryCnt(3).timeout(9).sqPsn(0x123456);
        qp.modifyQp(rts, IbvQpAttr.MASK_RTS);
        assertEquals(IbvQpState.RTS, qp.state());
        IbvQpAttr q = new IbvQpAttr();
        qp.queryQp(q);
        assertEquals(IbvQpState.RTS, q.qpState());
        assertEquals(3, q.retryCnt());
        assertEquals(9, q.timeout());
        assertEquals(5, q.destQpNum());
        e = assertThrows(VerbsException.class, () -> qp.modifyQp(
                new IbvQpAttr().qpState(IbvQpState.RTR), IbvQpAttr.STATE));
        assertEquals(VerbsException.EINVAL, e.errno(), "RTS -> RTR");
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        assertEquals(IbvQpState.ERR, qp.state());
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RESET), IbvQpAttr.STATE);
        assertEquals(IbvQpState.RESET, qp.state());
    }

    @Test
    void psnsWrapAroundInBothDirections() throws Exception {
        QpPair p = rig.connect(new QpSettings().psns(0xFFFFF0, 0xFFFFFA));
        int size = 1 << 20;
        for (IbvWrOpcode op : new IbvWrOpcode[] {IbvWrOpcode.RDMA_WRITE, IbvWrOpcode.RDMA_READ,
            IbvWrOpcode.SEND, IbvWrOpcode.RDMA_WRITE_WITH_IMM}) {
            TransferConformance.transferOnce(rig, p, op, size, op.ordinal());
        }
        // and the other way: B is the requester, its PSNs wrap too
        TransferConformance.Side a = new TransferConformance.Side(p.a(), rig.pdA, rig.cqA);
        TransferConformance.Side b = new TransferConformance.Side(p.b(), rig.pdB, rig.cqB);
        for (IbvWrOpcode op : new IbvWrOpcode[] {IbvWrOpcode.RDMA_WRITE, IbvWrOpcode.RDMA_READ,
            IbvWrOpcode.SEND}) {
            TransferConformance.transferOnce(rig, b, a, op, size, 10 + op.ordinal());
        }
    }
}
