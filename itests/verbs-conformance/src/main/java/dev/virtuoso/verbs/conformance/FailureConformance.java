package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;

/** Transport failures: retries exhausted, RNR, flush on error. */
public abstract class FailureConformance extends ConformanceBase {
    static final int ALL = TransferConformance.ALL;

    private void retryExceeded(int timeout, int retryCnt) throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(timeout).retryCnt(retryCnt));
        Mem local = rig.mem(rig.pdA, 8192, ALL);
        Mem remote = rig.mem(rig.pdB, 8192, ALL);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, local, 0, 8192, remote, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        long timeoutsBefore = p.a().counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS);
        env.vanish(rig.b);
        long start = System.nanoTime();
        p.a().postSend(Rig.wr(2, IbvWrOpcode.RDMA_WRITE, local, 0, 8192, remote, 0));
        p.a().postSend(Rig.wr(3, IbvWrOpcode.SEND, local, 0, 10, null, 0).sendFlags(0));
        List<IbvWc> wcs = Rig.expect(rig.cqA, 2);
        double elapsedMs = (System.nanoTime() - start) / 1e6;
        assertEquals(IbvWcStatus.RETRY_EXC_ERR, wcs.get(0).status(), wcs.toString());
        assertEquals(2, wcs.get(0).wrId());
        assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(1).status());
        assertEquals(3, wcs.get(1).wrId());
        assertEquals(IbvQpState.ERR, p.a().state());
        int timeoutInEffect = env.ackTimeoutInEffect(timeout);
        double nominalMs = (retryCnt + 1) * 4.096e-3 * (1L << timeoutInEffect);
        assertTrue(elapsedMs >= 0.7 * nominalMs && elapsedMs <= env.timeoutSlack() * nominalMs + 250,
                "RETRY_EXC_ERR after " + elapsedMs + " ms, expected about (" + retryCnt
                        + "+1) x timeout " + timeoutInEffect + " = " + nominalMs + " ms");
        long timeouts = p.a().counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS);
        if (timeouts >= 0) {
            assertEquals(retryCnt + 1, timeouts - timeoutsBefore, "timer expiries after the vanish");
        }
    }

    @Test
    void vanishedPeerEndsInRetryExceededAfterRetryCountPlusOneTimeouts() throws Exception {
        retryExceeded(14, 2);
    }

    @Test
    void retryCountSevenIsSevenRetriesNotInfinite() throws Exception {
        assumeSupported(Feature.RETRY_COUNT_SEVEN_IS_FINITE);
        retryExceeded(12, 7);
    }

    @Test
    void peerQpInErrorDropsEverythingSoRetriesRunOut() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(12).retryCnt(1));
        p.b().modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        Mem local = rig.mem(rig.pdA, 64, ALL);
        Mem remote = rig.mem(rig.pdB, 64, ALL);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, local, 0, 64, remote, 0));
        assertEquals(IbvWcStatus.RETRY_EXC_ERR, Rig.expect(rig.cqA, 1).get(0).status());
    }

    @Test
    void rnrRetriesRunOutWithoutAReceive() throws Exception {
        QpPair p = rig.connect(new QpSettings().rnrRetry(2).minRnrTimer(1));
        Mem local = rig.mem(rig.pdA, 100, ALL);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.SEND, local, 0, 100, null, 0));
        IbvWc wc = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(IbvWcStatus.RNR_RETRY_EXC_ERR, wc.status(), wc.toString());
        long rnr = p.a().counters().get(VerbsCounter.RNR_NAK_RECEIVED);
        if (rnr >= 0) {
            assertEquals(3, rnr, "one RNR NAK for the first try and one per retry");
        }
    }

    @Test
    void rnrWaitsUntilAReceiveIsPosted() throws Exception {
        QpPair p = rig.connect(new QpSettings().rnrRetry(7).minRnrTimer(10));
        Mem src = rig.mem(rig.pdA, 3 * rig.mtu(), ALL).fillRandom(5);
        Mem dst = rig.mem(rig.pdB, 3 * rig.mtu(), ALL);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.SEND, src, 0, 3 * rig.mtu(), null, 0));
        p.a().postSend(Rig.wr(2, IbvWrOpcode.RDMA_WRITE_WITH_IMM, src, 0, 64, dst, 0));
        assertTrue(Rig.quiet(rig.cqA, 60).isEmpty(), "completed without a receive");
        p.b().postRecv(Rig.recv(7, dst, 0, 3 * rig.mtu()));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqB, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, 3 * rig.mtu()));
        p.b().postRecv(Rig.recv(8, dst, 0, 0).numSge(0));
        List<IbvWc> sc = Rig.expect(rig.cqA, 2);
        assertEquals(IbvWcStatus.SUCCESS, sc.get(0).status(), sc.toString());
        assertEquals(IbvWcStatus.SUCCESS, sc.get(1).status(), sc.toString());
        assertEquals(8, Rig.expect(rig.cqB, 1).get(0).wrId());
        long rnr = p.b().counters().get(VerbsCounter.RNR_NAK_SENT);
        if (rnr >= 0) {
            assertTrue(rnr >= 1, "no RNR NAK sent");
        }
    }

    @Test
    void outstandingAndNewWorkIsFlushedWhenTheQpFails() throws Exception {
        // B in ERR drops A's packets, so A's WRs stay outstanding until A is moved to ERR
        QpPair p = rig.connect(new QpSettings().timeout(20));
        p.b().modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        Mem local = rig.mem(rig.pdA, 4096, ALL);
        Mem remote = rig.mem(rig.pdB, 4096, ALL);
        for (int i = 0; i < 5; i++) {
            IbvWrOpcode op = i % 2 == 0 ? IbvWrOpcode.RDMA_WRITE : IbvWrOpcode.RDMA_READ;
            p.a().postSend(Rig.wr(i, op, local, 0, 4096, remote, 0).sendFlags(i == 3 ? 0 : IbvSendFlags.SIGNALED));
        }
        List<IbvWc> early = Rig.quiet(rig.cqA, 50);
        assertTrue(early.isEmpty(), "completed although the peer drops everything: " + early);
        p.a().modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        List<IbvWc> wcs = Rig.expect(rig.cqA, 5);
        for (int i = 0; i < 5; i++) {
            assertEquals(i, wcs.get(i).wrId(), "flush order");
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(i).status());
            assertEquals(p.a().qpNum(), wcs.get(i).qpNum());
        }
    }

    @Test
    void workPostedAfterTheQpFailedIsFlushed() throws Exception {
        assumeSupported(Feature.WORK_POSTED_IN_ERROR_IS_FLUSHED);
        QpPair p = rig.connect(new QpSettings());
        Mem local = rig.mem(rig.pdA, 4096, ALL);
        p.a().modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        p.a().postSend(Rig.wr(10, IbvWrOpcode.SEND, local, 0, 8, null, 0).sendFlags(0));
        IbvWc late = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(10, late.wrId());
        assertEquals(IbvWcStatus.WR_FLUSH_ERR, late.status());
        p.a().postRecv(Rig.recv(11, local, 0, 8));
        IbvWc lateRecv = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(11, lateRecv.wrId());
        assertEquals(IbvWcStatus.WR_FLUSH_ERR, lateRecv.status());
    }

    @Test
    void postedReceivesAreFlushedInOrder() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        Mem m = rig.mem(rig.pdB, 4096, IbvAccess.LOCAL_WRITE);
        for (int i = 0; i < 4; i++) {
            p.b().postRecv(Rig.recv(100 + i, m, 0, 4096));
        }
        assertTrue(Rig.quiet(rig.cqB, 20).isEmpty());
        p.b().modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        List<IbvWc> wcs = Rig.expect(rig.cqB, 4);
        for (int i = 0; i < 4; i++) {
            assertEquals(100 + i, wcs.get(i).wrId());
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(i).status());
        }
    }
}
