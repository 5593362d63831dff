package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * Packet pacing ({@code IBV_QP_RATE_LIMIT}): the device reports its range, a limit is set from RTR
 * to RTS or from RTS to RTS, packets leave no faster than the limit (on the wire, headers
 * included), 0 removes it, and a reset clears it.
 */
class PacingTest {
    private static final int MTU = RawPeer.MTU;
    private RawPeer peer;

    @AfterEach
    void tearDown() {
        if (peer != null) {
            peer.close();
        }
    }

    private static IbvQpAttr rts(int kbps) {
        return new IbvQpAttr().qpState(IbvQpState.RTS).rateLimit(kbps);
    }

    private IbvSendWr write(IbvMr mr, int len) {
        IbvSendWr w = new IbvSendWr(1).wrId(1).opcode(IbvWrOpcode.RDMA_WRITE).sendFlags(IbvSendFlags.SIGNALED)
                .remoteAddr(0x1000).rkey(7);
        w.numSge(1).sge(0).set(mr.address(), len, mr.lkey());
        return w;
    }

    /**
     * @param t0 {@link System#nanoTime()} taken before the WR was posted
     * @return nanoseconds from {@code t0} until the peer has received {@code packets} packets: a
     *         late receiver only lengthens it, so it is a safe lower bound of the sender's pace (a
     *         spread measured from the first arrival shrinks when that arrival is late)
     */
    private long until(int packets, long t0) throws Exception {
        for (int i = 0; i < packets; i++) {
            assertNotNull(peer.receive(), "packet " + i);
        }
        return System.nanoTime() - t0;
    }

    @Test
    void theDeviceReportsItsRange() throws Exception {
        peer = RawPeer.withSqPsn(0, 7, 7);
        IbvDeviceAttr d = peer.ctx.queryDevice();
        assertEquals(Requester.RATE_LIMIT_MIN_KBPS, d.qpRateLimitMin());
        assertEquals(Requester.RATE_LIMIT_MAX_KBPS, d.qpRateLimitMax());
    }

    @Test
    void packetsLeaveNoFasterThanTheLimit() throws Exception {
        peer = RawPeer.withSqPsn(0, 7, 7);
        peer.qp.modifyQp(rts(8_000), IbvQpAttr.RATE_LIMIT); // 1 MB/s
        IbvQpAttr q = new IbvQpAttr();
        peer.qp.queryQp(q);
        assertEquals(8_000, q.rateLimit(), "queried back");
        int packets = 24;
        IbvMr mr = peer.mr(packets * MTU, IbvAccess.ALL);
        long t0 = System.nanoTime();
        peer.qp.postSend(write(mr, packets * MTU));
        long nanos = until(packets, t0);
        // packets 2..24 leave one wire time apart after the allowed burst
        long wire = (long) (packets - 1) * (MTU + Requester.WIRE_OVERHEAD_BYTES) * 8 * 1_000_000 / 8_000;
        assertTrue(nanos >= wire - Requester.PACE_BURST_NANOS - 1_000_000,
                "24 packets at 8 Mbit/s took " + nanos / 1000 + " us, wire time " + wire / 1000 + " us");
    }

    @Test
    void aPacedPacketWaitsForItsSlotNotForTheIdleTimeout() throws Exception {
        peer = RawPeer.withSqPsn(0, 7, 7);
        peer.qp.modifyQp(rts(16_000), IbvQpAttr.RATE_LIMIT); // 0.54 ms per packet; nothing else wakes the engine
        int packets = 24;
        IbvMr mr = peer.mr(packets * MTU, IbvAccess.ALL);
        long t0 = System.nanoTime();
        peer.qp.postSend(write(mr, packets * MTU));
        long nanos = until(packets, t0);
        assertTrue(nanos < 120_000_000L, "24 packets at 16 Mbit/s (12 ms of wire time) took " + nanos / 1000
                + " us: the engine must wake for the next slot, not after its longest park (10 ms)");
    }

    @Test
    void slotsFollowEachPacketsWireBytes() {
        assertEquals(1024, Requester.packetPayload(2 * 1024 + 100, 0, 1024, 10));
        assertEquals(1024, Requester.packetPayload(2 * 1024 + 100, 1, 1024, 10));
        assertEquals(100, Requester.packetPayload(2 * 1024 + 100, 2, 1024, 10), "the last packet's part");
        assertEquals(0, Requester.packetPayload(0, 0, 4096, 12));
        long ps = 1_000; // 8 Gbit/s: a nanosecond per byte
        long now = 10_000_000;
        assertEquals(now + 5_000, Requester.nextPaceAt(now + 4_000, now, 1_000, ps), "after the previous slot");
        assertEquals(now - Requester.PACE_BURST_NANOS + 1_082,
                Requester.nextPaceAt(0, now, 1_082, ps), "a QP that fell behind catches up at most the burst");
        long edge = now - Requester.PACE_BURST_NANOS;
        assertEquals(edge + 1_000, Requester.nextPaceAt(edge, now, 1_000, ps), "at the burst's edge");
        assertEquals(edge + 1_000, Requester.nextPaceAt(edge - 1, now, 1_000, ps), "just behind it");
        assertEquals(now + 2_000_000, Requester.nextPaceAt(now + 1_000_000, now, 1_000, 1_000_000),
                "picoseconds per byte");
    }

    @Test
    void zeroRemovesTheLimitAndAResetClearsIt() throws Exception {
        peer = RawPeer.withSqPsn(0, 7, 7);
        peer.qp.modifyQp(rts(1_000), IbvQpAttr.RATE_LIMIT); // 125 kB/s: a packet per 8.6 ms
        peer.qp.modifyQp(rts(0), IbvQpAttr.RATE_LIMIT);
        IbvQpAttr q = new IbvQpAttr();
        peer.qp.queryQp(q);
        assertEquals(0, q.rateLimit());
        int packets = 24;
        IbvMr mr = peer.mr(packets * MTU, IbvAccess.ALL);
        long t0 = System.nanoTime();
        peer.qp.postSend(write(mr, packets * MTU));
        long nanos = until(packets, t0);
        assertTrue(nanos < 150_000_000L, "unpaced: 24 packets in " + nanos / 1000 + " us (paced: 207 ms)");

        peer.qp.modifyQp(rts(1_000), IbvQpAttr.RATE_LIMIT);
        peer.qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RESET), IbvQpAttr.STATE);
        peer.qp.queryQp(q);
        assertEquals(0, q.rateLimit(), "a reset clears the limit");
        peer.reconnect(0);
        long t1 = System.nanoTime();
        peer.qp.postSend(write(mr, packets * MTU));
        long again = until(packets, t1);
        assertTrue(again < 150_000_000L, "unpaced after the reset: " + again / 1000 + " us (paced: 207 ms)");
    }

    @Test
    void aLimitOutsideTheRangeOrInTheWrongStateIsRefused() throws Exception {
        peer = RawPeer.withSqPsn(0, 7, 7);
        VerbsException low = assertThrows(VerbsException.class,
                () -> peer.qp.modifyQp(rts(999), IbvQpAttr.RATE_LIMIT));
        assertEquals(VerbsException.EINVAL, low.errno());
        assertTrue(low.getMessage().contains("rate limit"), low.getMessage());
        assertThrows(VerbsException.class,
                () -> peer.qp.modifyQp(rts(-5), IbvQpAttr.RATE_LIMIT));
        IbvQpAttr q = new IbvQpAttr();
        peer.qp.queryQp(q);
        assertEquals(0, q.rateLimit(), "a refused modify changes nothing");
        peer.qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RESET), IbvQpAttr.STATE);
        peer.qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(IbvAccess.ALL), IbvQpAttr.MASK_INIT);
        VerbsException init = assertThrows(VerbsException.class,
                () -> peer.qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).rateLimit(5_000),
                        IbvQpAttr.STATE | IbvQpAttr.RATE_LIMIT));
        assertTrue(init.getMessage().contains("RATE_LIMIT"), init.getMessage());
    }
}
