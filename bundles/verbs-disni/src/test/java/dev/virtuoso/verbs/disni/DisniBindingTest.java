package dev.virtuoso.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;
import dev.virtuoso.verbs.disni.emulation.CmFabric;

/**
 * The DiSNI binding end to end on DiSNI's Java classes over the emulated libdisni (soft RNICs on
 * the in-process fabric): device discovery, the CM-driven state machine per vNIC path, the data
 * verbs, flushes, error completions and the no-allocation fast path.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DisniBindingTest {
    private DisniOverSoft fx;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        fx = DisniOverSoft.start(tmp, 2_000);
    }

    @AfterAll
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void devicesComeFromSysfsWithTheirIpv4RoceV2Gids() throws Exception {
        List<RdmaDevice> devices = fx.provider.devices();
        assertEquals(List.of("a", "b"), devices.stream().map(RdmaDevice::name).toList());
        assertEquals(List.of(InetAddress.getByName("10.0.0.1"), InetAddress.getByName("10.0.1.1")),
                devices.get(0).vnics().stream().map(Vnic::address).toList());
        assertEquals(List.of(0, 1), devices.get(0).vnics().stream().map(Vnic::gidIndex).toList());
        assertThrows(VerbsException.class, () -> fx.provider.openDevice("nosuch"));
    }

    @Test
    void sendRecvWriteReadAndImmediatesOverEachPath() throws Exception {
        try (Link a = new Link(fx.openA(), 1 << 16); Link b = new Link(fx.openB(), 1 << 16)) {
            for (int path = 0; path < 2; path++) {
                Vnic va = a.ctx.vnics().get(path);
                Vnic vb = b.ctx.vnics().get(path);
                IbvQp qa = a.qp(0);
                IbvQp qb = b.qp(0);
                Link.connect(qa, va, qb, vb);
                exchange(a, qa, b, qb, path);
            }
            List<CmFabric.Path> paths = fx.emulation.cmFabric().paths();
            Set<String> used = new HashSet<>();
            for (CmFabric.Path p : paths.subList(paths.size() - 2, paths.size())) {
                used.add(p.active().getHostAddress() + "<->" + p.passive().getHostAddress());
            }
            // each QP pair is connected between the vNICs its path named: the aliases' GIDs
            assertEquals(Set.of("10.0.0.2<->10.0.0.1", "10.0.1.2<->10.0.1.1"), used);
        }
    }

    private static void exchange(Link a, IbvQp qa, Link b, IbvQp qb, int path) throws Exception {
        int base = path * 1024;
        // SEND -> RECV
        b.buf.put(base, (byte) 0);
        qb.postRecv(new IbvRecvWr().wrId(1000 + path).numSge(0));
        IbvRecvWr r = new IbvRecvWr();
        r.wrId(2000 + path).numSge(1).sge(0).set(b.mr.address() + base, 64, b.mr.lkey());
        a.buf.put(base, (byte) (42 + path));
        IbvSendWr s = new IbvSendWr();
        s.wrId(7 + path).opcode(IbvWrOpcode.SEND).sendFlags(IbvSendFlags.SIGNALED).numSge(1).sge(0)
                .set(a.mr.address() + base, 16, a.mr.lkey());
        // the first receive (no SGE) only takes zero-length messages: consume it with one
        IbvSendWr zero = new IbvSendWr().wrId(6).opcode(IbvWrOpcode.SEND).sendFlags(IbvSendFlags.SIGNALED)
                .numSge(0);
        qa.postSend(zero);
        qb.postRecv(r);
        qa.postSend(s);
        IbvWc w = b.poll();
        assertEquals(IbvWcStatus.SUCCESS, w.status(), w.toString());
        assertEquals(1000 + path, w.wrId());
        assertEquals(0, w.byteLen());
        assertEquals(qb.qpNum(), w.qpNum());
        assertEquals(qa.qpNum(), w.srcQp());
        w = b.poll();
        assertEquals(2000 + path, w.wrId());
        assertEquals(IbvWcOpcode.RECV, w.opcode());
        assertEquals(16, w.byteLen());
        assertEquals(42 + path, b.buf.get(base));
        assertEquals(6, a.poll().wrId());
        w = a.poll();
        assertEquals(7 + path, w.wrId());
        assertEquals(IbvWcOpcode.SEND, w.opcode());
        assertEquals(qa.qpNum(), w.qpNum());

        // RDMA WRITE WITH IMM: data placed at the MR's native address, immediate in host order
        for (int i = 0; i < 100; i++) {
            a.buf.put(base + 100 + i, (byte) i);
        }
        qb.postRecv(new IbvRecvWr().wrId(3000 + path).numSge(0));
        IbvSendWr wimm = new IbvSendWr().wrId(8).opcode(IbvWrOpcode.RDMA_WRITE_WITH_IMM)
                .sendFlags(IbvSendFlags.SIGNALED).numSge(1).remoteAddr(b.mr.address() + base + 500)
                .rkey(b.mr.rkey()).immData(0x01020304 + path);
        wimm.sge(0).set(a.mr.address() + base + 100, 100, a.mr.lkey());
        qa.postSend(wimm);
        w = b.poll();
        assertEquals(IbvWcOpcode.RECV_RDMA_WITH_IMM, w.opcode());
        assertTrue(w.hasImm());
        assertEquals(0x01020304 + path, w.immData());
        assertEquals(100, w.byteLen());
        for (int i = 0; i < 100; i++) {
            assertEquals((byte) i, b.buf.get(base + 500 + i));
        }
        assertEquals(IbvWcOpcode.RDMA_WRITE, a.poll().opcode());

        // SEND WITH IMM
        IbvRecvWr r2 = new IbvRecvWr().wrId(4000 + path).numSge(1);
        r2.sge(0).set(b.mr.address() + base, 64, b.mr.lkey());
        qb.postRecv(r2);
        IbvSendWr simm = new IbvSendWr().wrId(9).opcode(IbvWrOpcode.SEND_WITH_IMM)
                .sendFlags(IbvSendFlags.SIGNALED).numSge(1).immData(0xCAFEBABE);
        simm.sge(0).set(a.mr.address() + base, 8, a.mr.lkey());
        qa.postSend(simm);
        w = b.poll();
        assertEquals(0xCAFEBABE, w.immData());
        assertEquals(4000 + path, w.wrId());
        assertEquals(9, a.poll().wrId());

        // RDMA READ
        for (int i = 0; i < 32; i++) {
            b.buf.put(base + 700 + i, (byte) (0x70 + i));
        }
        IbvSendWr read = new IbvSendWr().wrId(10).opcode(IbvWrOpcode.RDMA_READ).sendFlags(IbvSendFlags.SIGNALED)
                .numSge(1).remoteAddr(b.mr.address() + base + 700).rkey(b.mr.rkey());
        read.sge(0).set(a.mr.address() + base + 900, 32, a.mr.lkey());
        qa.postSend(read);
        w = a.poll();
        assertEquals(IbvWcOpcode.RDMA_READ, w.opcode());
        assertEquals(IbvWcStatus.SUCCESS, w.status());
        for (int i = 0; i < 32; i++) {
            assertEquals((byte) (0x70 + i), a.buf.get(base + 900 + i));
        }
    }

    @Test
    void errorCompletionsNameTheirQpAndTheQpGoesToErr() throws Exception {
        try (Link a = new Link(fx.openA(), 4096); Link b = new Link(fx.openB(), 4096)) {
            IbvQp qa = a.qp(0);
            IbvQp qb = b.qp(0);
            Link.connect(qa, a.ctx.vnics().get(0), qb, b.ctx.vnics().get(0));
            // a successful completion on another QP first, so a stale qp_num would be visible
            IbvQp other = a.qp(0);
            IbvQp otherB = b.qp(0);
            Link.connect(other, a.ctx.vnics().get(1), otherB, b.ctx.vnics().get(1));
            IbvSendWr ok = new IbvSendWr().wrId(1).opcode(IbvWrOpcode.RDMA_WRITE).sendFlags(IbvSendFlags.SIGNALED)
                    .numSge(1).remoteAddr(b.mr.address()).rkey(b.mr.rkey());
            ok.sge(0).set(a.mr.address(), 8, a.mr.lkey());
            other.postSend(ok);
            assertEquals(other.qpNum(), a.poll().qpNum());
            IbvSendWr bad = new IbvSendWr().wrId(77).opcode(IbvWrOpcode.RDMA_WRITE)
                    .sendFlags(IbvSendFlags.SIGNALED).numSge(1).remoteAddr(b.mr.address()).rkey(b.mr.rkey() ^ 0x5a5a);
            bad.sge(0).set(a.mr.address(), 8, a.mr.lkey());
            qa.postSend(bad);
            IbvWc w = a.poll();
            assertEquals(77, w.wrId());
            assertEquals(IbvWcStatus.REM_ACCESS_ERR, w.status());
            assertEquals(qa.qpNum(), w.qpNum(), "qp_num of an error completion must be the failing QP's");
            assertEquals(IbvQpState.ERR, qa.state());
            // posting to a QP in ERR completes at once with WR_FLUSH_ERR
            qa.postSend(new IbvSendWr().wrId(78).opcode(IbvWrOpcode.SEND).numSge(0));
            w = a.poll();
            assertEquals(78, w.wrId());
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, w.status());
            assertEquals(qa.qpNum(), w.qpNum());
        }
    }

    @Test
    void modifyToErrFlushesReceivesInPostingOrder() throws Exception {
        try (Link a = new Link(fx.openA(), 4096); Link b = new Link(fx.openB(), 4096)) {
            IbvQp qa = a.qp(0);
            IbvQp qb = b.qp(0);
            Link.connect(qa, a.ctx.vnics().get(0), qb, b.ctx.vnics().get(0));
            for (int i = 0; i < 5; i++) {
                IbvRecvWr r = new IbvRecvWr().wrId(500 + i).numSge(1);
                r.sge(0).set(b.mr.address() + 64L * i, 64, b.mr.lkey());
                qb.postRecv(r);
            }
            qb.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
            assertEquals(IbvQpState.ERR, qb.state());
            for (int i = 0; i < 5; i++) {
                IbvWc w = b.poll();
                assertEquals(500 + i, w.wrId());
                assertEquals(IbvWcStatus.WR_FLUSH_ERR, w.status());
                assertEquals(qb.qpNum(), w.qpNum());
            }
        }
    }

    @Test
    void workPostedBeforeTheConnectionExistsIsReplayedAndInlineIsCopiedAtPostTime() throws Exception {
        try (Link a = new Link(fx.openA(), 4096); Link b = new Link(fx.openB(), 4096)) {
            IbvQp qa = a.qp(64);
            IbvQp qb = b.qp(64);
            Vnic va = a.ctx.vnics().get(0);
            Vnic vb = b.ctx.vnics().get(0);
            // A (10.0.0.1) is the passive side: it reaches RTS long before B even starts
            Link.init(qa);
            Link.init(qb);
            IbvRecvWr r = new IbvRecvWr().wrId(11).numSge(1);
            r.sge(0).set(b.mr.address(), 64, b.mr.lkey());
            qb.postRecv(r); // in INIT, before any native QP exists
            Link.rtr(qa, va, vb, qb.qpNum());
            Link.rts(qa);
            a.buf.put(0, (byte) 0x11);
            IbvSendWr s = new IbvSendWr().wrId(12).opcode(IbvWrOpcode.SEND)
                    .sendFlags(IbvSendFlags.SIGNALED | IbvSendFlags.INLINE).numSge(1);
            s.sge(0).set(a.mr.address(), 4, a.mr.lkey());
            qa.postSend(s);
            a.buf.put(0, (byte) 0x22); // INLINE: the bytes at post time must be sent
            assertTrue(a.quietFor(100), "nothing can complete before the peer connects");
            Link.rtr(qb, vb, va, qa.qpNum());
            Link.rts(qb);
            IbvWc w = b.poll();
            assertEquals(11, w.wrId());
            assertEquals(IbvWcStatus.SUCCESS, w.status());
            assertEquals(0x11, b.buf.get(0));
            assertEquals(12, a.poll().wrId());
        }
    }

    @Test
    void aRejectedConnectionLooksLikeAPeerThatNeverAnswers() throws Exception {
        try (Link a = new Link(fx.openA(), 4096); Link b = new Link(fx.openB(), 4096)) {
            IbvQp qb = b.qp(0);
            Link.init(qb);
            qb.postRecv(new IbvRecvWr().wrId(31).numSge(0));
            long rejected = fx.emulation.cmFabric().rejected();
            // B (10.0.0.2) is active (from RTS on) towards a QPN that has no listener
            Link.rtr(qb, b.ctx.vnics().get(0), a.ctx.vnics().get(0), 19999);
            Link.rts(qb);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (fx.emulation.cmFabric().rejected() == rejected && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(rejected + 1, fx.emulation.cmFabric().rejected());
            assertTrue(b.quietFor(50), "no work to fail yet");
            assertEquals(IbvQpState.RTS, qb.state());
            long t0 = System.nanoTime();
            qb.postSend(new IbvSendWr().wrId(32).opcode(IbvWrOpcode.SEND).numSge(0));
            IbvWc w = b.poll();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(32, w.wrId());
            assertEquals(IbvWcStatus.RETRY_EXC_ERR, w.status());
            // (retry_cnt 7 + 1) x timeout 14 = 537 ms
            assertTrue(ms >= 500 && ms < 2_000, "failed after the retransmit budget, took " + ms + " ms");
            w = b.poll();
            assertEquals(31, w.wrId());
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, w.status());
            assertEquals(IbvQpState.ERR, qb.state());
        }
    }

    @Test
    void passiveSideTimesOutWhenThePeerNeverConnects() throws Exception {
        try (Link b = new Link(fx.openB(), 4096); Link a = new Link(fx.openA(), 4096)) {
            IbvQp qa = a.qp(0);
            Link.init(qa);
            qa.postRecv(new IbvRecvWr().wrId(41).numSge(0));
            long t0 = System.nanoTime();
            Link.rtr(qa, a.ctx.vnics().get(0), b.ctx.vnics().get(0), 20000 + 40000);
            Link.rts(qa);
            qa.postSend(new IbvSendWr().wrId(42).opcode(IbvWrOpcode.SEND).numSge(0));
            IbvWc w = a.poll();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(IbvWcStatus.RETRY_EXC_ERR, w.status());
            assertEquals(42, w.wrId());
            assertTrue(ms >= 1_900 && ms < 4_000, "failed at the 2 s connect timeout, took " + ms + " ms");
            w = a.poll();
            assertEquals(41, w.wrId());
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, w.status());
        }
    }

    @Test
    void steadyStatePostingReusesPreparedCalls() throws Exception {
        try (Link a = new Link(fx.openA(), 1 << 16); Link b = new Link(fx.openB(), 1 << 16)) {
            IbvQp qa = a.qp(0);
            IbvQp qb = b.qp(0);
            Link.connect(qa, a.ctx.vnics().get(0), qb, b.ctx.vnics().get(0));
            IbvSendWr write = new IbvSendWr().opcode(IbvWrOpcode.RDMA_WRITE).sendFlags(IbvSendFlags.SIGNALED)
                    .numSge(1).rkey(b.mr.rkey());
            IbvSendWr send = new IbvSendWr().opcode(IbvWrOpcode.SEND).sendFlags(IbvSendFlags.SIGNALED).numSge(1);
            IbvRecvWr r = new IbvRecvWr().numSge(1);
            IbvWc[] wcs = new IbvWc[16];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWc();
            }
            long[] before = null;
            for (int i = 0; i < 600; i++) {
                int chunk = 1 + (i % 8);
                r.wrId(i).sge(0).set(b.mr.address() + 4096 + 64L * (i % 4), 64, b.mr.lkey());
                qb.postRecv(r);
                write.wrId(2L * i).remoteAddr(b.mr.address() + 64L * chunk)
                        .sge(0).set(a.mr.address() + 128L * chunk, 32 * chunk, a.mr.lkey());
                qa.postSend(write);
                send.wrId(2L * i + 1).sge(0).set(a.mr.address() + 8L * chunk, chunk, a.mr.lkey());
                qa.postSend(send);
                int got = 0;
                while (got < 2) {
                    got += a.cq.pollCq(wcs, 2 - got);
                }
                int recvd = 0;
                while (recvd == 0) {
                    recvd = b.cq.pollCq(wcs, 1);
                }
                assertEquals(i, wcs[0].wrId());
                assertEquals(chunk, wcs[0].byteLen());
                if (i == 99) {
                    before = new long[] {((DisniQp) qa).preparedCounts()[0], ((DisniQp) qb).preparedCounts()[1]};
                }
            }
            long[] after = {((DisniQp) qa).preparedCounts()[0], ((DisniQp) qb).preparedCounts()[1]};
            assertArrayEquals(before, after, "no DiSNI call prepared per post in steady state");
            assertEquals(2, after[0], "one prepared call per (opcode, SGE count) serves every address and length");
            assertEquals(4, after[1], "one prepared receive call per reposted buffer");
        }
    }

    @Test
    void completionChannelWakesForItsCq() throws Exception {
        try (Link a = new Link(fx.openA(), 4096); Link b = new Link(fx.openB(), 4096)) {
            IbvQp qa = a.qp(0);
            IbvQp qb = b.qp(0);
            Link.connect(qa, a.ctx.vnics().get(0), qb, b.ctx.vnics().get(0));
            b.cq.reqNotifyCq(false);
            assertEquals(null, b.channel.getCqEvent(50, TimeUnit.MILLISECONDS));
            qb.postRecv(new IbvRecvWr().wrId(1).numSge(0));
            qa.postSend(new IbvSendWr().wrId(2).opcode(IbvWrOpcode.SEND).numSge(0));
            IbvCq fired = b.channel.getCqEvent(5, TimeUnit.SECONDS);
            assertSame(b.cq, fired);
            b.cq.ackCqEvents(1);
            IbvWc w = b.poll();
            assertEquals(1, w.wrId());
            // software flushes fire an armed CQ too
            qb.postRecv(new IbvRecvWr().wrId(3).numSge(0));
            b.cq.reqNotifyCq(false);
            qb.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
            assertNotNull(b.channel.getCqEvent(5, TimeUnit.SECONDS));
            b.cq.ackCqEvents(1);
            assertEquals(3, b.poll().wrId());
        }
    }

    @Test
    void unsupportedAndInvalidRequestsFailClearly() throws Exception {
        try (Link a = new Link(fx.openA(), 4096)) {
            VerbsException srq = assertThrows(VerbsException.class, () -> a.pd.createSrq(16, 1));
            assertEquals(VerbsException.EOPNOTSUPP, srq.errno());
            IbvQp q = a.qp(0);
            Link.init(q);
            IbvQpAttr v6 = new IbvQpAttr().qpState(IbvQpState.RTR).destQpNum(20001);
            v6.ahAttr().dgid(InetAddress.getByName("2001:db8::2")).sgidIndex(0);
            assertEquals(VerbsException.EINVAL,
                    assertThrows(VerbsException.class, () -> q.modifyQp(v6, IbvQpAttr.MASK_RTR)).errno());
            IbvQpAttr badGid = new IbvQpAttr().qpState(IbvQpState.RTR).destQpNum(20001);
            badGid.ahAttr().dgid(InetAddress.getByName("10.0.0.2")).sgidIndex(7);
            assertEquals(VerbsException.EINVAL,
                    assertThrows(VerbsException.class, () -> q.modifyQp(badGid, IbvQpAttr.MASK_RTR)).errno());
            assertEquals(IbvQpState.INIT, q.state());
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                    () -> q.postSend(new IbvSendWr().opcode(IbvWrOpcode.SEND).numSge(0))).errno());
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                    () -> a.pd.createQp(new dev.virtuoso.spi.verbs.IbvQpInitAttr().sendCq(a.cq).recvCq(a.cq)
                            .maxSendSge(5))).errno());
        }
    }
}
