package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;

/**
 * The requester's retransmit timer against a stalled engine thread: a timeout is declared only
 * after every response that arrived before the deadline was processed, and never before the
 * responder had the time to answer the packet that asked for an ACK. Real losses still time out,
 * and a timeout retransmits one probe first instead of the whole window.
 *
 * <p>The stalls are scripted on the engine thread through {@link ScriptedWire}; no assertion
 * depends on how fast anything runs.
 */
class RetransmitTimerTest {
    /** 4.096 us x 2^12 = 16.8 ms. */
    private static final int TIMEOUT = 12;
    private static final long TIMEOUT_NANOS = 4096L << TIMEOUT;
    private static final int ALL = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE
            | IbvAccess.REMOTE_READ;

    private ScriptedFabric fabric;
    private ScriptedWire wireA;
    private ScriptedWire wireB;
    private Rig rig;

    @BeforeEach
    void setUp() throws Exception {
        fabric = new ScriptedFabric("timer", 7, 3);
        rig = fabric.rig;
        wireA = fabric.wireA();
        wireB = fabric.wireB();
    }

    @AfterEach
    void tearDown() {
        if (fabric != null) {
            fabric.close();
        }
    }

    @Test
    void stallWhileTheAckArrivesIsNoTimeout() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(1));
        Mem src = rig.mem(rig.pdA, 1000, ALL).fillRandom(1);
        Mem dst = rig.mem(rig.pdB, 1000, ALL);
        long[] stallStart = new long[1];
        // A's engine finds its queue empty right after sending, then is descheduled until B's ACK
        // is queued and two timeouts have passed
        wireA.afterSend(() -> {
            stallStart[0] = System.nanoTime();
            wireA.stallNextReceive(() -> sent(p.b()) >= 1
                    && System.nanoTime() - stallStart[0] > 2 * TIMEOUT_NANOS);
        });
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 1000, dst, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, 1000));
        assertNoRetransmission(p.a());
    }

    @Test
    void stallInsideABurstRestartsTheTimerAtTheAckRequest() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(1));
        int len = 3 * rig.mtu();
        Mem src = rig.mem(rig.pdA, len, ALL).fillRandom(2);
        Mem dst = rig.mem(rig.pdB, len, ALL);
        // the first packet starts the timer; descheduled after the second (neither asks for an
        // ACK) for three timeouts; the third asks for the ACK, which then takes half a timeout to
        // become visible
        wireA.afterSend(() -> { });
        wireA.afterSend(() -> ScriptedWire.stallFor(3 * TIMEOUT_NANOS));
        wireA.afterSend(() -> {
            ScriptedWire.stallUntil(() -> sent(p.b()) >= 1);
            wireA.hideReceivesUntil(System.nanoTime() + TIMEOUT_NANOS / 2);
        });
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, len, dst, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, len));
        assertNoRetransmission(p.a());
    }

    @Test
    void lostAckTimesOutAndOneProbeLearnsEverythingArrived() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(7));
        int len = 4 * rig.mtu();
        Mem src = rig.mem(rig.pdA, len, ALL).fillRandom(3);
        Mem dst = rig.mem(rig.pdB, len, ALL);
        wireA.dropReceived(0, 1); // the one ACK of the 4-packet WRITE
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, len, dst, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, len));
        assertEquals(1, wireA.dropped());
        long timeouts = p.a().counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS);
        long resent = p.a().counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
        assertTrue(timeouts >= 1, "the lost ACK must end in a timeout");
        assertEquals(timeouts, resent, "one probe per timeout, not the window");
        assertEquals(resent, p.b().counters().get(VerbsCounter.DUPLICATE_REQUESTS));
    }

    @Test
    void lateAcksAfterATimeoutLetOneProbeGoEachNotTheWindow() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(7));
        int packets = 64; // AckReq on PSN 31 and 63: two ACKs, as B takes at most 32 per receive
        int len = packets * rig.mtu();
        Mem src = rig.mem(rig.pdA, len, ALL).fillRandom(6);
        Mem dst = rig.mem(rig.pdB, len, ALL);
        wireB.receiveLimit(32);
        wireA.receiveLimit(1);
        // A sees nothing until B has sent both ACKs and answered the probe that A's timeout sends,
        // then takes the late ACKs one per cycle: the first one covers half of the window
        wireA.hideReceivesUntil(() -> sent(p.b()) >= 3);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, len, dst, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, len));
        long timeouts = p.a().counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS);
        long resent = p.a().counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
        assertTrue(timeouts >= 1, "A saw no ACK before its deadline");
        // a probe per timeout (PSN 0), then one after the late ACK of 0..31 (PSN 32); the ACK of
        // 0..63 ends it. Going back N after the first late ACK would resend 32..63.
        assertEquals(timeouts + 1, resent, "resent packets after " + timeouts + " timeouts");
    }

    @Test
    void lostDataTimesOutAndGoesBackToTheMissingPacket() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(7));
        int len = 4 * rig.mtu();
        Mem src = rig.mem(rig.pdA, len, ALL).fillRandom(4);
        Mem dst = rig.mem(rig.pdB, len, ALL);
        wireB.dropReceived(3, 1); // the last packet, the only one asking for an ACK
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, len, dst, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, len));
        assertEquals(1, wireB.dropped());
        long timeouts = p.a().counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS);
        long resent = p.a().counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
        assertTrue(timeouts >= 1, "a lost tail packet is found by the timer");
        // the probe (PSN 0, a duplicate) tells A that B has 0..2; A then resends only PSN 3
        assertTrue(resent >= 2 && resent <= timeouts + 1, "resent " + resent + " packets after "
                + timeouts + " timeouts");
    }

    @Test
    void lostReadResponseTimesOutAndTheReadCompletes() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(7));
        int len = 3 * rig.mtu();
        Mem src = rig.mem(rig.pdB, len, ALL).fillRandom(5);
        Mem dst = rig.mem(rig.pdA, len, ALL);
        wireA.dropReceived(2, 1); // the last response
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_READ, dst, 0, len, src, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, len));
        assertTrue(p.a().counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS) >= 1);
    }

    @Test
    void deadPeerStillExhaustsTheRetries() throws Exception {
        QpPair p = rig.connect(new QpSettings().timeout(TIMEOUT).retryCnt(2));
        Mem src = rig.mem(rig.pdA, 3 * rig.mtu(), ALL);
        Mem dst = rig.mem(rig.pdB, 3 * rig.mtu(), ALL);
        wireB.dropReceived(0, Integer.MAX_VALUE);
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 3 * rig.mtu(), dst, 0));
        List<IbvWc> wcs = Rig.expect(rig.cqA, 1);
        assertEquals(IbvWcStatus.RETRY_EXC_ERR, wcs.get(0).status());
        assertEquals(3, p.a().counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS));
        assertEquals(2, wireB.dropped() - 3, "three packets, then one probe per retry");
    }

    private static long sent(IbvQp qp) {
        return qp.counters().get(VerbsCounter.TX_PACKETS);
    }

    private static void assertNoRetransmission(IbvQp qp) {
        assertEquals(0, qp.counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS), "timeouts");
        assertEquals(0, qp.counters().get(VerbsCounter.RETRANSMITTED_PACKETS), "resent packets");
    }
}
