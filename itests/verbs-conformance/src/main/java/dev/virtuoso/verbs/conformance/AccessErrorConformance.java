package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/** Protection: remote access errors, local protection and length errors. */
public abstract class AccessErrorConformance extends ConformanceBase {
    static final int ALL = TransferConformance.ALL;
    private static final byte FILL = 0x33;

    /** Ways a one-sided request can violate the responder's protection. */
    public enum Violation {
        WRITE_BAD_RKEY, WRITE_OUT_OF_BOUNDS, WRITE_MR_WITHOUT_REMOTE_WRITE,
        WRITE_QP_WITHOUT_REMOTE_WRITE, READ_BAD_RKEY, READ_OUT_OF_BOUNDS,
        READ_MR_WITHOUT_REMOTE_READ, READ_QP_WITHOUT_REMOTE_READ
    }

    @ParameterizedTest
    @EnumSource(Violation.class)
    void remoteAccessErrorFailsTheRequestAndStopsTheResponder(Violation v) throws Exception {
        if (v == Violation.WRITE_QP_WITHOUT_REMOTE_WRITE || v == Violation.READ_QP_WITHOUT_REMOTE_READ) {
            assumeSupported(Feature.QP_ACCESS_FLAGS);
        }
        // the test ends by checking that the responder's QP went to ERR
        assumeSupported(Feature.RESPONDER_ERROR_STATE);
        boolean read = v.name().startsWith("READ");
        int qpAccess = ALL;
        if (v == Violation.WRITE_QP_WITHOUT_REMOTE_WRITE) {
            qpAccess = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_READ;
        } else if (v == Violation.READ_QP_WITHOUT_REMOTE_READ) {
            qpAccess = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE;
        }
        QpPair p = rig.connect(new QpSettings().access(qpAccess));
        int mrAccess = ALL;
        if (v == Violation.WRITE_MR_WITHOUT_REMOTE_WRITE) {
            mrAccess = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_READ;
        } else if (v == Violation.READ_MR_WITHOUT_REMOTE_READ) {
            mrAccess = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE;
        }
        int size = 3 * rig.mtu();
        Mem remote = rig.mem(rig.pdB, size, mrAccess).fill(FILL);
        Mem local = rig.mem(rig.pdA, size, ALL).fillRandom(1);
        Mem before = rig.mem(rig.pdA, size, ALL);
        before.buf().put(0, local.buf(), 0, size);
        int remoteOff = v.name().endsWith("OUT_OF_BOUNDS") ? 1 : 0;
        IbvSendWr w = Rig.wr(1, read ? IbvWrOpcode.RDMA_READ : IbvWrOpcode.RDMA_WRITE, local, 0,
                size, remote, remoteOff);
        if (v.name().endsWith("BAD_RKEY")) {
            w.rkey(remote.mr().rkey() ^ 0x5A5A_0001);
        }
        p.a().postSend(w);
        IbvWc wc = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(1, wc.wrId());
        awaitState(p.a(), IbvQpState.ERR);
        awaitState(p.b(), IbvQpState.ERR);
        assertTrue(remote.all(0, size, FILL), "responder memory was written");
        if (read) {
            assertEquals(-1, local.mismatch(0, before, 0, size), "requester memory was written");
        }
        boolean qpViolation = v == Violation.WRITE_QP_WITHOUT_REMOTE_WRITE || v == Violation.READ_QP_WITHOUT_REMOTE_READ;
        if (qpViolation) {
            assertStatus(Feature.QP_ACCESS_VIOLATION_IS_REMOTE_ACCESS_ERROR, IbvWcStatus.REM_ACCESS_ERR, wc);
        } else {
            assertEquals(IbvWcStatus.REM_ACCESS_ERR, wc.status(), wc.toString());
        }
    }

    @Test
    void badLkeyIsALocalProtectionError() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        Mem local = rig.mem(rig.pdA, 4096, ALL);
        Mem remote = rig.mem(rig.pdB, 4096, ALL).fill(FILL);
        IbvSendWr w = Rig.wr(9, IbvWrOpcode.RDMA_WRITE, local, 0, 4096, remote, 0);
        w.sge(0).lkey(local.mr().lkey() ^ 0x0101_0101);
        p.a().postSend(w);
        IbvWc wc = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(9, wc.wrId());
        awaitState(p.a(), IbvQpState.ERR);
        assertTrue(remote.all(0, 4096, FILL));
        assertStatus(Feature.BAD_LKEY_IS_LOCAL_PROTECTION_ERROR, IbvWcStatus.LOC_PROT_ERR, wc);
    }

    @Test
    void sgeOutsideItsRegionIsALocalProtectionError() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        Mem local = rig.mem(rig.pdA, 4096, ALL);
        Mem remote = rig.mem(rig.pdB, 8192, ALL).fill(FILL);
        p.a().postSend(Rig.wr(4, IbvWrOpcode.RDMA_WRITE, local, 1, 4096, remote, 0));
        assertEquals(IbvWcStatus.LOC_PROT_ERR, Rig.expect(rig.cqA, 1).get(0).status());
        assertTrue(remote.all(0, 8192, FILL));
    }

    @Test
    void sendLongerThanTheReceiveIsALengthError() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        Mem src = rig.mem(rig.pdA, 2 * rig.mtu(), ALL).fillRandom(3);
        Mem dst = rig.mem(rig.pdB, 2 * rig.mtu(), ALL).fill(FILL);
        p.b().postRecv(Rig.recv(5, dst, 0, rig.mtu()));
        p.a().postSend(Rig.wr(6, IbvWrOpcode.SEND, src, 0, 2 * rig.mtu(), null, 0));
        IbvWc rc = Rig.expect(rig.cqB, 1).get(0);
        assertEquals(5, rc.wrId());
        IbvWc sc = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(6, sc.wrId());
        assertTrue(dst.all(rig.mtu(), rig.mtu(), FILL), "wrote past the receive buffer");
        assertNotEquals(IbvWcStatus.SUCCESS, sc.status(), sc.toString());
        assertStatus(Feature.SHORT_RECEIVE_IS_LENGTH_ERROR, IbvWcStatus.LOC_LEN_ERR, rc);
        assertStatus(Feature.SHORT_RECEIVE_IS_LENGTH_ERROR, IbvWcStatus.REM_INV_REQ_ERR, sc);
    }

    @Test
    void laterWorkIsFlushedAfterARemoteAccessError() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        Mem local = rig.mem(rig.pdA, 4096, ALL);
        Mem remote = rig.mem(rig.pdB, 4096, ALL);
        IbvSendWr bad = Rig.wr(0, IbvWrOpcode.RDMA_WRITE, local, 0, 64, remote, 0);
        bad.rkey(remote.mr().rkey() + 1);
        p.a().postSend(bad);
        for (int i = 1; i <= 3; i++) {
            p.a().postSend(Rig.wr(i, IbvWrOpcode.RDMA_WRITE, local, 0, 64, remote, 0).sendFlags(0));
        }
        List<IbvWc> wcs = Rig.expect(rig.cqA, 4);
        assertEquals(IbvWcStatus.REM_ACCESS_ERR, wcs.get(0).status());
        for (int i = 1; i <= 3; i++) {
            assertEquals(i, wcs.get(i).wrId());
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(i).status(), "unsignaled WRs flush too");
        }
    }

    static void awaitState(IbvQp qp, IbvQpState state) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (qp.state() != state && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(state, qp.state(), "QP " + qp.qpNum());
    }
}
