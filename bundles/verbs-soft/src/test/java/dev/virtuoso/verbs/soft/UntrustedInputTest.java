package dev.virtuoso.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * A soft RNIC on UDP (ICRC checking on) fed hand-built and random datagrams from a plain socket:
 * every bad packet is dropped and counted, protection errors are NAKed without writing, the engine
 * survives, and well-formed packets are accepted. (The test's sender computes its ICRC with the
 * same IP-ID-0 assumption as the receiver: this checks the engine, not the kernel's IP header.)
 */
class UntrustedInputTest {
    private static final byte[] VICTIM_IP = {127, 0, 0, 21};
    private static final byte[] PEER_IP = {127, 0, 0, 22};
    private static final int MTU = 1024;
    private static final byte FILL = 0x11;

    private SoftVerbsProvider provider;
    private IbvContext ctx;
    private IbvPd pd;
    private IbvCq cq;
    private IbvMr mr;
    private ByteBuffer memory;
    private DatagramChannel peer;
    private InetSocketAddress victim;
    private final PacketBuilder builder = new PacketBuilder();
    private final Icrc icrc = new Icrc();

    @BeforeEach
    void setUp() throws Exception {
        provider = new SoftVerbsProvider(SoftRnicConfig.builder("victim")
                .addressLiterals("127.0.0.21").udpPort(0).icrcCheck(true).build());
        ctx = provider.openDevice("victim");
        pd = ctx.allocPd();
        cq = ctx.createCq(64, null);
        memory = ByteBuffer.allocateDirect(4096);
        for (int i = 0; i < 4096; i++) {
            memory.put(i, FILL);
        }
        mr = pd.regMr(memory, IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ);
        peer = DatagramChannel.open();
        peer.bind(new InetSocketAddress("127.0.0.22", 0));
        peer.configureBlocking(false);
        victim = new InetSocketAddress("127.0.0.21", ctx.udpPort());
    }

    @AfterEach
    void tearDown() throws IOException {
        peer.close();
        provider.close();
    }

    private IbvQp qp(int rqPsn) throws Exception {
        IbvQp qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq));
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).qpAccessFlags(
                IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ),
                IbvQpAttr.MASK_INIT);
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.MTU_1024)
                .destQpNum(0x99).rqPsn(rqPsn).maxDestRdAtomic(4).minRnrTimer(1);
        rtr.ahAttr().dgid(((InetSocketAddress) peer.getLocalAddress()).getAddress())
                .udpPort(((InetSocketAddress) peer.getLocalAddress()).getPort());
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        return qp;
    }

    private void send(ByteBuffer datagram) throws IOException {
        assertTrue(peer.send(datagram, victim) > 0);
    }

    /** Finishes the packet in the builder with a correct ICRC (or a corrupted one) and sends it. */
    private void sendBuilt(boolean corruptIcrc) throws IOException {
        ByteBuffer b = builder.finish(icrc, PEER_IP, VICTIM_IP,
                ((InetSocketAddress) peer.getLocalAddress()).getPort(), victim.getPort());
        if (corruptIcrc) {
            b.put(b.limit() - 1, (byte) (b.get(b.limit() - 1) ^ 1));
        }
        send(b);
    }

    private void write(IbvQp qp, int opcode, int psn, long va, int rkey, int dmaLen, int payload,
            byte value) throws IOException {
        builder.begin(opcode, false, qp.qpNum(), true, psn, payload);
        if ((RcOpcode.flags(opcode) & RcOpcode.RETH) != 0) {
            builder.reth(va, rkey, dmaLen);
        }
        for (int i = 0; i < payload; i++) {
            builder.buffer().put(builder.payloadOffset() + i, value);
        }
        sendBuilt(false);
    }

    /** @return the next ACK/NAK from the victim within a second, or null */
    private RocePacket response() throws Exception {
        ByteBuffer rx = ByteBuffer.allocate(8192);
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            rx.clear();
            if (peer.receive(rx) != null) {
                rx.flip();
                RocePacket p = new RocePacket();
                assertTrue(p.decode(rx, 0, rx.remaining()), "victim sent a malformed packet");
                return p;
            }
            Thread.sleep(1);
        }
        return null;
    }

    private static void awaitCount(VerbsCounters c, VerbsCounter which, long atLeast)
            throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (c.get(which) < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(atLeast, c.get(which), which.toString());
    }

    private boolean untouched(int from, int to) {
        for (int i = from; i < to; i++) {
            if (memory.get(i) != FILL) {
                return false;
            }
        }
        return true;
    }

    @Test
    void garbageIsDroppedAndCountedAndTheEngineSurvives() throws Exception {
        IbvQp qp = qp(1000);
        VerbsCounters dev = ctx.counters();
        send(ByteBuffer.wrap(new byte[10]));
        awaitCount(dev, VerbsCounter.DROP_MALFORMED, 1);

        builder.begin(RcOpcode.WRITE_ONLY, false, qp.qpNum(), true, 1000, 4)
                .reth(mr.address(), mr.rkey(), 4);
        sendBuilt(true);
        awaitCount(dev, VerbsCounter.DROP_BAD_ICRC, 1);

        builder.begin(RcOpcode.SEND_ONLY, false, qp.qpNum() ^ 0x800000, true, 1000, 0);
        sendBuilt(false);
        awaitCount(dev, VerbsCounter.DROP_UNKNOWN_QP, 1);

        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 2000; i++) {
            byte[] junk = new byte[r.nextInt(1, 1200)];
            for (int k = 0; k < junk.length; k++) {
                junk[k] = (byte) r.nextInt();
            }
            if (junk.length >= 8 && i % 2 == 0) {
                junk[0] = (byte) r.nextInt(0x12); // a valid RC opcode, so deeper checks run
                junk[1] = 0;
                junk[2] = (byte) 0xFF;
                junk[3] = (byte) 0xFF;
                junk[5] = (byte) (qp.qpNum() >>> 16);
                junk[6] = (byte) (qp.qpNum() >>> 8);
                junk[7] = (byte) qp.qpNum();
            }
            send(ByteBuffer.wrap(junk));
            if (i % 200 == 0) {
                Thread.sleep(2); // stay below the socket buffer
            }
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (dev.get(VerbsCounter.RX_PACKETS) < 2003 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(provider.device("victim").isRunning(), "engine died");
        assertEquals(IbvQpState.RTR, qp.state(), "random input must not reach the QP");
        assertTrue(untouched(0, 4096));
        long droppedBeforeQp = dev.get(VerbsCounter.DROP_MALFORMED)
                + dev.get(VerbsCounter.DROP_BAD_ICRC) + dev.get(VerbsCounter.DROP_UNKNOWN_QP);
        // The ICRC check accepts any IPv4 ID (a UDP socket cannot see it), so a random tail passes
        // it with probability 2^-16: of the ~220 junk packets that decode, one reaches the QP in
        // about 0.3% of runs. Such a packet must still be dropped (or, behind the PSN, answered as a duplicate) and counted.
        long reachedQp = dev.get(VerbsCounter.RX_PACKETS) - droppedBeforeQp;
        assertTrue(reachedQp <= 2, "too many junk packets passed the ICRC: " + dev);
        long droppedAtQp = dev.get(VerbsCounter.DROP_PSN_OUT_OF_WINDOW)
                + dev.get(VerbsCounter.DROP_BAD_STATE) + dev.get(VerbsCounter.DROP_UNEXPECTED_RESPONSE)
                + dev.get(VerbsCounter.DROP_RX_OVERRUN) + dev.get(VerbsCounter.DUPLICATE_REQUESTS);
        assertEquals(2003, dev.get(VerbsCounter.RX_PACKETS), dev.toString());
        assertTrue(droppedAtQp >= reachedQp, "a junk packet reached the QP uncounted: " + dev);
    }

    @Test
    void wellFormedWritesAreAcceptedAndSequenceErrorsNakedOncePerGap() throws Exception {
        IbvQp qp = qp(0xFFFFFF);
        write(qp, RcOpcode.WRITE_ONLY, 0xFFFFFF, mr.address() + 100, mr.rkey(), 8, 8, (byte) 1);
        RocePacket ack = response();
        assertNotNull(ack, "no ACK for a well-formed WRITE");
        assertTrue(Aeth.isAck(ack.syndrome));
        assertEquals(0xFFFFFF, ack.psn);
        assertEquals(0x99, ack.destQp);
        for (int i = 100; i < 108; i++) {
            assertEquals(1, memory.get(i));
        }
        // PSN 2 while 0 is expected: one NAK for the gap, however many packets come after it
        write(qp, RcOpcode.WRITE_ONLY, 2, mr.address(), mr.rkey(), 4, 4, (byte) 9);
        write(qp, RcOpcode.WRITE_ONLY, 3, mr.address(), mr.rkey(), 4, 4, (byte) 9);
        RocePacket nak = response();
        assertNotNull(nak);
        assertEquals(Aeth.NAK_PSN_SEQUENCE, nak.syndrome);
        assertEquals(0, nak.psn, "NAK carries the expected PSN");
        assertNull(response(), "a second NAK for the same gap");
        // a duplicate is acknowledged again, not executed again
        write(qp, RcOpcode.WRITE_ONLY, 0xFFFFFF, mr.address() + 100, mr.rkey(), 8, 8, (byte) 5);
        RocePacket reAck = response();
        assertNotNull(reAck);
        assertTrue(Aeth.isAck(reAck.syndrome));
        assertEquals(1, memory.get(100), "duplicate executed twice");
        assertTrue(untouched(0, 100));
        VerbsCounters c = qp.counters();
        assertEquals(1, c.get(VerbsCounter.NAK_SEQ_SENT));
        assertEquals(1, c.get(VerbsCounter.DUPLICATE_REQUESTS));
        assertEquals(2, c.get(VerbsCounter.DROP_PSN_OUT_OF_WINDOW));
    }

    @Test
    void badRkeyAndBoundsAreNakedWithoutWriting() throws Exception {
        IbvQp a = qp(10);
        write(a, RcOpcode.WRITE_ONLY, 10, mr.address(), mr.rkey() ^ 1, 16, 16, (byte) 2);
        RocePacket nak = response();
        assertNotNull(nak);
        assertEquals(Aeth.NAK_REMOTE_ACCESS, nak.syndrome);
        assertEquals(10, nak.psn);
        awaitState(a, IbvQpState.ERR);

        IbvQp b = qp(20);
        // FIRST announces 2 MTUs ending 1 byte past the region
        write(b, RcOpcode.WRITE_FIRST, 20, mr.address() + 4096 - 2 * MTU + 1, mr.rkey(), 2 * MTU,
                MTU, (byte) 3);
        assertEquals(Aeth.NAK_REMOTE_ACCESS, response().syndrome);
        awaitState(b, IbvQpState.ERR);

        IbvQp c = qp(30);
        // a READ of 1 MiB starting just before the region
        builder.begin(RcOpcode.READ_REQUEST, false, c.qpNum(), true, 30, 0)
                .reth(mr.address() - 8, mr.rkey(), 1 << 20);
        sendBuilt(false);
        assertEquals(Aeth.NAK_REMOTE_ACCESS, response().syndrome);
        assertTrue(untouched(0, 4096));
        assertEquals(3, ctx.counters().get(VerbsCounter.NAK_ACCESS_SENT));
    }

    @Test
    void moreDataThanAnnouncedIsAnInvalidRequest() throws Exception {
        IbvQp qp = qp(40);
        write(qp, RcOpcode.WRITE_FIRST, 40, mr.address(), mr.rkey(), 2 * MTU, MTU, (byte) 4);
        write(qp, RcOpcode.WRITE_MIDDLE, 41, 0, 0, 0, MTU, (byte) 4); // should have been LAST
        RocePacket nak = response();
        while (nak != null && Aeth.isAck(nak.syndrome)) {
            nak = response();
        }
        assertNotNull(nak);
        assertEquals(Aeth.NAK_INVALID_REQUEST, nak.syndrome);
        assertEquals(41, nak.psn);
        awaitState(qp, IbvQpState.ERR);
        assertTrue(untouched(2 * MTU, 4096), "wrote past the announced length");

        IbvQp other = qp(50);
        write(other, RcOpcode.WRITE_MIDDLE, 50, 0, 0, 0, MTU, (byte) 6); // no FIRST before it
        assertEquals(Aeth.NAK_INVALID_REQUEST, response().syndrome);
        assertTrue(untouched(2 * MTU, 4096));
    }

    /**
     * In-window packets with a correct ICRC at the live QPN and PSN, but from an address or UDP
     * port other than the QP's peer, are dropped and counted per QP and device; the peer's own
     * packet is then accepted at that same PSN.
     */
    @Test
    void packetsFromAnotherSourceAreDroppedAndCounted() throws Exception {
        IbvQp qp = qp(60);
        try (DatagramChannel forger = DatagramChannel.open();
                DatagramChannel samehost = DatagramChannel.open()) {
            forger.bind(new InetSocketAddress("127.0.0.23", 0));
            samehost.bind(new InetSocketAddress("127.0.0.22", 0));
            byte[] forgerIp = {127, 0, 0, 23};
            builder.begin(RcOpcode.WRITE_ONLY, false, qp.qpNum(), true, 60, 8)
                    .reth(mr.address(), mr.rkey(), 8);
            for (int i = 0; i < 8; i++) {
                builder.buffer().put(builder.payloadOffset() + i, (byte) 0x66);
            }
            forger.send(builder.finish(icrc, forgerIp, VICTIM_IP,
                    ((InetSocketAddress) forger.getLocalAddress()).getPort(), victim.getPort()),
                    victim);
            builder.begin(RcOpcode.WRITE_ONLY, false, qp.qpNum(), true, 60, 8)
                    .reth(mr.address(), mr.rkey(), 8);
            for (int i = 0; i < 8; i++) {
                builder.buffer().put(builder.payloadOffset() + i, (byte) 0x67);
            }
            samehost.send(builder.finish(icrc, PEER_IP, VICTIM_IP,
                    ((InetSocketAddress) samehost.getLocalAddress()).getPort(), victim.getPort()),
                    victim);
            awaitCount(qp.counters(), VerbsCounter.DROP_BAD_SOURCE, 2);
        }
        assertEquals(2, ctx.counters().get(VerbsCounter.DROP_BAD_SOURCE));
        assertNull(response(), "a forged request was answered");
        assertTrue(untouched(0, 4096), "a forged WRITE landed");
        write(qp, RcOpcode.WRITE_ONLY, 60, mr.address(), mr.rkey(), 8, 8, (byte) 7);
        RocePacket ack = response();
        assertNotNull(ack, "the peer's packet at the same PSN was not accepted");
        assertTrue(Aeth.isAck(ack.syndrome));
        assertEquals(7, memory.get(0));
        assertEquals(0, qp.counters().get(VerbsCounter.DUPLICATE_REQUESTS));
    }

    private static void awaitState(IbvQp qp, IbvQpState s) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (qp.state() != s && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(s, qp.state());
    }
}
