package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/** Ordering within one QP: placement before later receive completions, completion order, fence. */
public abstract class OrderingConformance extends ConformanceBase {
    static final int ALL = TransferConformance.ALL;

    @Test
    void writesArePlacedBeforeALaterSendCompletes() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        int chunk = 64 << 10;
        int n = 32;
        Mem src = rig.mem(rig.pdA, n * chunk, IbvAccess.LOCAL_WRITE).fillRandom(1);
        Mem dst = rig.mem(rig.pdB, n * chunk, ALL).fill((byte) 0);
        Mem note = rig.mem(rig.pdB, 16, ALL);
        p.b().postRecv(Rig.recv(500, note, 0, 16));
        for (int i = 0; i < n; i++) {
            IbvSendWr w = Rig.wr(i, IbvWrOpcode.RDMA_WRITE, src, i * chunk, chunk, dst, i * chunk);
            w.sendFlags(i % 2 == 0 ? IbvSendFlags.SIGNALED : 0);
            p.a().postSend(w);
        }
        p.a().postSend(Rig.wr(n, IbvWrOpcode.SEND_WITH_IMM, src, 0, 0, null, 0).immData(42));
        IbvWc rc = Rig.expect(rig.cqB, 1).get(0);
        // checked right after the receive completion: every earlier WRITE must be in place
        assertEquals(IbvWcStatus.SUCCESS, rc.status());
        assertEquals(42, rc.immData());
        assertEquals(-1, dst.mismatch(0, src, 0, n * chunk), "WRITE data missing at SEND completion");
        List<IbvWc> sc = Rig.expect(rig.cqA, n / 2 + 1);
        long last = -1;
        for (IbvWc wc : sc) {
            assertEquals(IbvWcStatus.SUCCESS, wc.status());
            assertTrue(wc.wrId() > last, "send completions out of posting order: " + sc);
            last = wc.wrId();
        }
        assertEquals(n, last);
    }

    @Test
    void completionsFollowPostingOrderAcrossOpcodes() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        int n = 120;
        int size = 3 * rig.mtu() + 17;
        Mem local = rig.mem(rig.pdA, n * size, ALL).fillRandom(2);
        Mem remote = rig.mem(rig.pdB, n * size, ALL).fillRandom(3);
        Mem recvBuf = rig.mem(rig.pdB, n * size, ALL);
        IbvWrOpcode[] ops = {IbvWrOpcode.RDMA_WRITE, IbvWrOpcode.RDMA_READ, IbvWrOpcode.SEND,
            IbvWrOpcode.RDMA_WRITE_WITH_IMM, IbvWrOpcode.SEND_WITH_IMM};
        int receives = 0;
        for (int i = 0; i < n; i++) {
            IbvWrOpcode op = ops[i % ops.length];
            if (op == IbvWrOpcode.SEND || op == IbvWrOpcode.SEND_WITH_IMM
                    || op == IbvWrOpcode.RDMA_WRITE_WITH_IMM) {
                p.b().postRecv(Rig.recv(i, recvBuf, i * size, size));
                receives++;
            }
        }
        List<Long> signaled = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            IbvWrOpcode op = ops[i % ops.length];
            boolean send = op == IbvWrOpcode.SEND || op == IbvWrOpcode.SEND_WITH_IMM;
            IbvSendWr w = Rig.wr(i, op, local, i * size, size, send ? null : remote, i * size);
            w.immData(i);
            if (i % 3 == 2) {
                w.sendFlags(0);
            } else {
                signaled.add((long) i);
            }
            p.a().postSend(w);
        }
        List<IbvWc> sc = Rig.expect(rig.cqA, signaled.size());
        List<Long> ids = new ArrayList<>();
        for (IbvWc wc : sc) {
            assertEquals(IbvWcStatus.SUCCESS, wc.status(), wc.toString());
            ids.add(wc.wrId());
        }
        assertEquals(signaled, ids, "send completions must come in posting order");
        List<IbvWc> rc = Rig.expect(rig.cqB, receives);
        int prev = -1;
        for (IbvWc wc : rc) {
            assertEquals(IbvWcStatus.SUCCESS, wc.status());
            assertTrue(wc.hasImm() || wc.opcode() == IbvWcOpcode.RECV);
            if (wc.hasImm()) {
                assertTrue(wc.immData() > prev, "receive completions out of order");
                prev = wc.immData();
            }
        }
        assertTrue(Rig.quiet(rig.cqA, 50).isEmpty(), "unsignaled WRs must not complete");
    }

    @Test
    void fenceMakesALaterWriteWaitForAnEarlierRead() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        int size = 1 << 20;
        Mem remote = rig.mem(rig.pdB, size, ALL).fillRandom(4);
        Mem original = rig.mem(rig.pdA, size, ALL);
        original.buf().put(0, remote.buf(), 0, size);
        Mem readInto = rig.mem(rig.pdA, size, ALL);
        Mem overwrite = rig.mem(rig.pdA, size, ALL).fill((byte) 7);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_READ, readInto, 0, size, remote, 0));
        IbvSendWr w = Rig.wr(2, IbvWrOpcode.RDMA_WRITE, overwrite, 0, size, remote, 0);
        w.sendFlags(IbvSendFlags.SIGNALED | IbvSendFlags.FENCE);
        p.a().postSend(w);
        List<IbvWc> sc = Rig.expect(rig.cqA, 2);
        assertEquals(1, sc.get(0).wrId());
        assertEquals(2, sc.get(1).wrId());
        assertEquals(IbvWcStatus.SUCCESS, sc.get(0).status());
        assertEquals(IbvWcStatus.SUCCESS, sc.get(1).status());
        assertEquals(-1, readInto.mismatch(0, original, 0, size), "READ saw the fenced WRITE");
        assertTrue(remote.all(0, size, (byte) 7), "fenced WRITE not placed");
    }
}
