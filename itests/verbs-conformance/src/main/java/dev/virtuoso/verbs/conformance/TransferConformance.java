package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * Every operation at the sizes where segmentation changes (0, 1, MTU-1, MTU, MTU+1), 1 MiB, and
 * 64 MiB for WRITE and READ, with byte-exact checks and guard bytes around every target.
 */
public abstract class TransferConformance extends ConformanceBase {
    static final int GUARD = 64;
    static final int ALL = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ;
    private static final byte FILL = 0x5A;

    Stream<Arguments> cases() {
        int mtu = env.mtu().bytes();
        int[] sizes = {0, 1, mtu - 1, mtu, mtu + 1, 1 << 20};
        List<Arguments> out = new ArrayList<>();
        for (IbvWrOpcode op : IbvWrOpcode.values()) {
            for (int s : sizes) {
                out.add(Arguments.of(op, s));
            }
        }
        out.add(Arguments.of(IbvWrOpcode.RDMA_WRITE, 64 << 20));
        out.add(Arguments.of(IbvWrOpcode.RDMA_READ, 64 << 20));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} of {1} bytes")
    @MethodSource("cases")
    void transfer(IbvWrOpcode op, int size) throws Exception {
        QpPair p = rig.connect(new QpSettings());
        transferOnce(rig, p, op, size, size * 31L + op.ordinal());
    }

    /** Runs one operation A to B (READ: B's bytes to A) and checks completions and bytes. */
    public static void transferOnce(Rig rig, QpPair p, IbvWrOpcode op, int size, long seed)
            throws Exception {
        transferOnce(rig, new Side(p.a(), rig.pdA, rig.cqA), new Side(p.b(), rig.pdB, rig.cqB), op,
                size, seed);
    }

    /**
     * One end of a connection for {@link #transferOnce(Rig, Side, Side, IbvWrOpcode, int, long)}.
     *
     * @param qp the QP
     * @param pd its PD
     * @param cq its (send and receive) CQ
     */
    public record Side(IbvQp qp, IbvPd pd, IbvCq cq) {
    }

    /** Runs one operation from {@code req} to {@code resp} and checks completions and bytes. */
    public static void transferOnce(Rig rig, Side req, Side resp, IbvWrOpcode op, int size, long seed)
            throws Exception {
        boolean read = op == IbvWrOpcode.RDMA_READ;
        Mem source = (read ? rig.mem(resp.pd(), size + 2 * GUARD, ALL)
                : rig.mem(req.pd(), size + 2 * GUARD, IbvAccess.LOCAL_WRITE)).fillRandom(seed);
        Mem target = (read ? rig.mem(req.pd(), size + 2 * GUARD, IbvAccess.LOCAL_WRITE)
                : rig.mem(resp.pd(), size + 2 * GUARD, ALL)).fill(FILL);
        boolean send = op == IbvWrOpcode.SEND || op == IbvWrOpcode.SEND_WITH_IMM;
        boolean imm = op == IbvWrOpcode.SEND_WITH_IMM || op == IbvWrOpcode.RDMA_WRITE_WITH_IMM;
        if (send || imm) {
            // a receive larger than the message: byte_len must report the message size
            IbvRecvWr r = Rig.recv(77, target, GUARD, send ? size + GUARD : 0);
            if (!send) {
                r.numSge(0);
            }
            resp.qp().postRecv(r);
        }
        IbvSendWr w;
        if (read) {
            w = Rig.wr(11, op, target, GUARD, size, source, GUARD);
        } else {
            w = Rig.wr(11, op, source, GUARD, size, send ? null : target, GUARD);
        }
        w.immData(0x1234_5678 ^ size);
        req.qp().postSend(w);

        IbvWc wc = Rig.expect(req.cq(), 1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(11, wc.wrId());
        assertEquals(req.qp().qpNum(), wc.qpNum());
        assertEquals(read ? IbvWcOpcode.RDMA_READ : send ? IbvWcOpcode.SEND : IbvWcOpcode.RDMA_WRITE,
                wc.opcode());
        if (read) {
            assertEquals(size, wc.byteLen());
        }
        if (send || imm) {
            IbvWc rc = Rig.expect(resp.cq(), 1).get(0);
            assertEquals(IbvWcStatus.SUCCESS, rc.status(), rc.toString());
            assertEquals(77, rc.wrId());
            assertEquals(resp.qp().qpNum(), rc.qpNum());
            assertEquals(send ? IbvWcOpcode.RECV : IbvWcOpcode.RECV_RDMA_WITH_IMM, rc.opcode());
            assertEquals(size, rc.byteLen());
            assertEquals(imm, rc.hasImm());
            if (imm) {
                assertEquals(0x1234_5678 ^ size, rc.immData());
            }
        }
        assertEquals(-1, target.mismatch(GUARD, source, GUARD, size), "data differs");
        assertTrue(target.all(0, GUARD, FILL), "bytes written before the target");
        assertTrue(target.all(GUARD + size, GUARD, FILL), "bytes written after the target");
        assertTrue(Rig.quiet(req.cq(), 0).isEmpty(), "extra completions on A");
    }

    /**
     * The core tells a placement notice from a small message by bit 31 of the immediate: every bit
     * of a SEND's immediate must arrive unchanged, the top one included.
     */
    @Test
    void sendImmediatesKeepEveryBit() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        int[] imms = {0x8000_0000, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0001, 0};
        Mem src = rig.mem(rig.pdA, 16, IbvAccess.LOCAL_WRITE).fillRandom(9);
        Mem dst = rig.mem(rig.pdB, 16 * imms.length, ALL).fill(FILL);
        for (int i = 0; i < imms.length; i++) {
            p.b().postRecv(Rig.recv(100 + i, dst, 16 * i, 16));
        }
        for (int i = 0; i < imms.length; i++) {
            p.a().postSend(Rig.wr(i, IbvWrOpcode.SEND_WITH_IMM, src, 0, 9, null, 0).immData(imms[i]));
        }
        List<IbvWc> sent = Rig.expect(rig.cqA, imms.length);
        for (IbvWc wc : sent) {
            assertEquals(IbvWcStatus.SUCCESS, wc.status(), wc.toString());
        }
        List<IbvWc> got = Rig.expect(rig.cqB, imms.length);
        for (int i = 0; i < imms.length; i++) {
            IbvWc rc = got.get(i);
            assertEquals(IbvWcStatus.SUCCESS, rc.status(), rc.toString());
            assertEquals(100 + i, rc.wrId());
            assertEquals(9, rc.byteLen());
            assertTrue(rc.hasImm(), rc.toString());
            assertEquals(imms[i], rc.immData(), "immediate " + Integer.toHexString(imms[i]));
            assertEquals(-1, dst.mismatch(16 * i, src, 0, 9), "payload " + i);
        }
    }

    @Test
    void gatherAndScatterAcrossSges() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        int mtu = rig.mtu();
        int[] parts = {mtu / 2 + 3, 2 * mtu + 1, 5};
        int total = parts[0] + parts[1] + parts[2];
        Mem src = rig.mem(rig.pdA, total + 300, IbvAccess.LOCAL_WRITE).fillRandom(5);
        Mem dst = rig.mem(rig.pdB, total + 300, ALL).fill(FILL);
        // scatter into three pieces of other sizes, with gaps between them
        int[] rparts = {7, mtu + 9, total - 16 - mtu};
        IbvRecvWr r = new IbvRecvWr(3).wrId(1).numSge(3);
        int off = 0;
        for (int i = 0; i < 3; i++) {
            r.sge(i).set(dst.addr(off), rparts[i], dst.mr().lkey());
            off += rparts[i] + 50;
        }
        p.b().postRecv(r);
        IbvSendWr w = new IbvSendWr(3).wrId(2).opcode(IbvWrOpcode.SEND)
                .sendFlags(IbvSendFlags.SIGNALED).numSge(3);
        off = 0;
        for (int i = 0; i < 3; i++) {
            w.sge(i).set(src.addr(off), parts[i], src.mr().lkey());
            off += parts[i] + 100;
        }
        p.a().postSend(w);
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        IbvWc rc = Rig.expect(rig.cqB, 1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, rc.status());
        assertEquals(total, rc.byteLen());
        byte[] sent = new byte[total];
        int at = 0;
        off = 0;
        for (int i = 0; i < 3; i++) {
            src.buf().get(off, sent, at, parts[i]);
            at += parts[i];
            off += parts[i] + 100;
        }
        at = 0;
        off = 0;
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < rparts[i]; k++) {
                assertEquals(sent[at + k], dst.buf().get(off + k), "sge " + i + " byte " + k);
            }
            assertTrue(dst.all(off + rparts[i], 50, FILL), "gap after sge " + i + " written");
            at += rparts[i];
            off += rparts[i] + 50;
        }
    }

    @Test
    void inlineSendCopiesAtPostTime() throws Exception {
        QpPair p = rig.connect(new QpSettings().maxInline(256));
        Mem src = rig.mem(rig.pdA, 200, IbvAccess.LOCAL_WRITE).fillRandom(9);
        Mem copy = rig.mem(rig.pdA, 200, IbvAccess.LOCAL_WRITE);
        copy.buf().put(0, src.buf(), 0, 200);
        Mem dst = rig.mem(rig.pdB, 256, ALL).fill(FILL);
        p.b().postRecv(Rig.recv(1, dst, 0, 256));
        IbvSendWr w = Rig.wr(3, IbvWrOpcode.SEND, src, 0, 200, null, 0);
        w.sendFlags(IbvSendFlags.SIGNALED | IbvSendFlags.INLINE);
        p.a().postSend(w);
        src.fill((byte) 0); // the payload was copied during postSend
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(200, Rig.expect(rig.cqB, 1).get(0).byteLen());
        assertEquals(-1, dst.mismatch(0, copy, 0, 200));
    }
}
