package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;

/**
 * IBA transport rules the soft RNIC once got wrong, on a lossless fabric with scripted losses and
 * stalls ({@link ScriptedWire}): an ACK says nothing about a later READ; every retry counts against
 * {@code retry_cnt}; a READ beyond {@code max_dest_rd_atomic} is NAKed and counted.
 */
class TransportSemanticsTest {
    /** 4.096 us x 2^12 = 16.8 ms. */
    private static final int TIMEOUT = 12;
    private static final int ALL = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE
            | IbvAccess.REMOTE_READ;
    private static final int PAIRS = 20;
    private static final int SIZE = 64 * 1024;

    private ScriptedFabric fabric;
    private ScriptedWire wireB;
    private Rig rig;

    @BeforeEach
    void setUp() throws Exception {
        fabric = new ScriptedFabric("semantics", 11, 5);
        rig = fabric.rig;
        wireB = fabric.wireB();
    }

    @AfterEach
    void tearDown() {
        if (fabric != null) {
            fabric.close();
        }
    }

    @Test
    void writeThenReadOnOneQpRetransmitsNothingOnALosslessFabric() throws Exception {
        pairsThenReads(IbvWrOpcode.RDMA_WRITE);
    }

    @Test
    void sendThenReadOnOneQpRetransmitsNothingOnALosslessFabric() throws Exception {
        pairsThenReads(IbvWrOpcode.SEND);
    }

    /** {@value #PAIRS} pairs of a 64 KiB WRITE or SEND followed by a 64 KiB READ, all posted. */
    private void pairsThenReads(IbvWrOpcode first) throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(14).retryCnt(7));
        Mem outA = rig.mem(rig.pdA, PAIRS * SIZE, ALL).fillRandom(1);
        Mem inB = rig.mem(rig.pdB, PAIRS * SIZE, ALL);
        Mem outB = rig.mem(rig.pdB, PAIRS * SIZE, ALL).fillRandom(2);
        Mem inA = rig.mem(rig.pdA, PAIRS * SIZE, ALL);
        if (first == IbvWrOpcode.SEND) {
            for (int i = 0; i < PAIRS; i++) {
                p.b().postRecv(Rig.recv(100 + i, inB, i * SIZE, SIZE));
            }
        }
        for (int i = 0; i < PAIRS; i++) {
            p.a().postSend(Rig.wr(2 * i, first, outA, i * SIZE, SIZE, inB, i * SIZE));
            p.a().postSend(Rig.wr(2 * i + 1, IbvWrOpcode.RDMA_READ, inA, i * SIZE, SIZE, outB,
                    i * SIZE));
        }
        List<IbvWc> wcs = Rig.expect(rig.cqA, 2 * PAIRS);
        for (IbvWc wc : wcs) {
            assertEquals(IbvWcStatus.SUCCESS, wc.status(), "wr " + wc.wrId());
        }
        assertEquals(-1, inB.mismatch(0, outA, 0, PAIRS * SIZE));
        assertEquals(-1, inA.mismatch(0, outB, 0, PAIRS * SIZE));
        assertEquals(0, p.a().counters().get(VerbsCounter.RETRANSMITTED_PACKETS),
                "retransmitted on a lossless fabric: " + p.a().counters());
        assertEquals(0, p.b().counters().get(VerbsCounter.DUPLICATE_REQUESTS));
    }

    @Test
    void aNakSequenceRetryCountsAgainstRetryCntZero() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(0));
        int len = 4 * rig.mtu();
        Mem src = rig.mem(rig.pdA, len, ALL).fillRandom(3);
        Mem dst = rig.mem(rig.pdB, len, ALL);
        wireB.dropReceived(1, 1); // PSN 1: B NAKs the gap when PSN 2 arrives
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, len, dst, 0));
        assertEquals(IbvWcStatus.RETRY_EXC_ERR, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(1, p.a().counters().get(VerbsCounter.NAK_SEQ_RECEIVED));
        assertEquals(0, p.a().counters().get(VerbsCounter.RETRANSMITTED_PACKETS), "retried");
        assertEquals(IbvQpState.ERR, p.a().state());
    }

    @Test
    void retryCntOneAllowsOneRetryAndProgressRestoresIt() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(1));
        int len = 4 * rig.mtu();
        Mem src = rig.mem(rig.pdA, 2 * len, ALL).fillRandom(4);
        Mem dst = rig.mem(rig.pdB, 2 * len, ALL);
        wireB.dropReceived(1, 1);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, len, dst, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        // the ACK of the first WRITE was progress: the second loss gets a retry of its own
        wireB.dropReceived(1, 1);
        p.a().postSend(Rig.wr(2, IbvWrOpcode.RDMA_WRITE, src, len, len, dst, len));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, 2 * len));
        assertEquals(2, p.a().counters().get(VerbsCounter.NAK_SEQ_RECEIVED));
        assertEquals(2, wireB.dropped());
    }

    /**
     * A requester that keeps more READs outstanding than the responder's max_dest_rd_atomic: the
     * responder NAKs the first READ too many (Invalid Request, as IBA and rxe do), counts it,
     * and the requester's WR fails instead of waiting forever for a response that never comes.
     */
    @Test
    void aReadBeyondMaxDestRdAtomicIsNakedAndCounted() throws Exception {
        QpSettings sa = new QpSettings().timeout(TIMEOUT).retryCnt(1).maxRdAtomic(8);
        QpSettings sb = new QpSettings().timeout(TIMEOUT).retryCnt(1).maxRdAtomic(2);
        IbvQp qa = rig.createQp(rig.pdA, rig.cqA, null, sa);
        IbvQp qb = rig.createQp(rig.pdB, rig.cqB, null, sb);
        rig.toRts(qa, rig.b, qb.qpNum(), 100, 200, sa);
        rig.toRts(qb, rig.a, qa.qpNum(), 200, 100, sb);
        int len = rig.mtu();
        Mem src = rig.mem(rig.pdB, 8 * len, ALL).fillRandom(5);
        Mem dst = rig.mem(rig.pdA, 8 * len, ALL);
        // B looks at its port only once A has sent all 8 READ requests: one batch holds them all
        wireB.stallNextReceive(() -> qa.counters().get(VerbsCounter.TX_PACKETS) >= 8);
        for (int i = 0; i < 8; i++) {
            qa.postSend(Rig.wr(i, IbvWrOpcode.RDMA_READ, dst, i * len, len, src, i * len));
        }
        List<IbvWc> wcs = Rig.expect(rig.cqA, 8);
        assertNotEquals(IbvWcStatus.SUCCESS, wcs.get(wcs.size() - 1).status());
        assertEquals(1, qb.counters().get(VerbsCounter.READ_RESOURCES_EXCEEDED));
        assertEquals(1, qb.counters().get(VerbsCounter.NAK_INVALID_SENT));
        assertEquals(IbvQpState.ERR, qb.state());
    }
}
