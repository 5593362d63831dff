package dev.virtuoso.verbs.soft.rnic;

import static dev.virtuoso.verbs.soft.rnic.RequesterPacketsTest.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.verbs.soft.fabric.FabricPort;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * What the engine does with each received datagram before a QP sees it, and the packet and byte
 * counters operators read: malformed datagrams, bad ICRCs, unknown QPs and foreign source ports
 * are dropped and counted at the device; accepted ones are counted at the QP.
 */
class EngineInputTest {
    private RawPeer peer;

    @AfterEach
    void tearDown() {
        if (peer != null) {
            peer.close();
        }
    }

    private void open(boolean checkSourcePort) throws Exception {
        peer = new RawPeer(b -> b.checkSourcePort(checkSourcePort), new IbvQpAttr().sqPsn(0)
                .timeout(0).retryCnt(0).rnrRetry(0).maxRdAtomic(1), 0, 1, 1);
    }

    private VerbsCounters device() {
        return peer.ctx.counters();
    }

    private ByteBuffer writeOnly(int destQp, int psn, IbvMr mr, int len) {
        peer.builder.begin(RcOpcode.WRITE_ONLY, false, destQp, true, psn, len)
                .reth(mr.address(), mr.rkey(), len);
        return peer.builder.finish(new Icrc(), RawPeer.B_IP, RawPeer.A_IP, 4791,
                peer.a.getPort());
    }

    @Test
    void malformedBadIcrcAndUnknownQpAreCountedAtTheDevice() throws Exception {
        open(true);
        IbvMr mr = peer.mr(64, IbvAccess.ALL);
        peer.sendRaw(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        waitFor(() -> device().get(VerbsCounter.DROP_MALFORMED) == 1);
        assertEquals(1, device().get(VerbsCounter.RX_PACKETS));
        assertEquals(3, device().get(VerbsCounter.RX_BYTES));
        ByteBuffer bad = writeOnly(peer.qp.qpNum(), 0, mr, 8);
        bad.put(bad.limit() - 1, (byte) (bad.get(bad.limit() - 1) ^ 0x55));
        int len = bad.remaining();
        peer.sendRaw(bad);
        waitFor(() -> device().get(VerbsCounter.DROP_BAD_ICRC) == 1);
        assertEquals(2, device().get(VerbsCounter.RX_PACKETS));
        assertEquals(3 + len, device().get(VerbsCounter.RX_BYTES));
        peer.sendRaw(writeOnly(peer.qp.qpNum() + 1, 0, mr, 8));
        waitFor(() -> device().get(VerbsCounter.DROP_UNKNOWN_QP) == 1);
        assertEquals(3, device().get(VerbsCounter.RX_PACKETS));
        assertEquals(0, peer.qp.counters().get(VerbsCounter.RX_PACKETS), "none reached the QP");
        assertEquals(0, mr.buffer().get(0));
        assertTrue(peer.silentFor(20));
    }

    @Test
    void acceptedPacketsAreCountedAtTheQpBothWays() throws Exception {
        open(true);
        IbvMr mr = peer.mr(64, IbvAccess.ALL);
        ByteBuffer w = writeOnly(peer.qp.qpNum(), 0, mr, 8);
        int len = w.remaining();
        peer.sendRaw(w);
        RocePacket ack = peer.receive();
        assertNotNull(ack);
        assertEquals(Aeth.ACK_UNLIMITED, ack.syndrome);
        VerbsCounters c = peer.qp.counters();
        assertEquals(1, c.get(VerbsCounter.RX_PACKETS));
        assertEquals(len, c.get(VerbsCounter.RX_BYTES));
        waitFor(() -> c.get(VerbsCounter.TX_PACKETS) == 1);
        assertEquals(ack.length, c.get(VerbsCounter.TX_BYTES));
        assertEquals(0, device().get(VerbsCounter.DROP_MALFORMED));
    }

    @Test
    void aForeignSourcePortIsDroppedUnlessTheDeviceIgnoresIt() throws Exception {
        open(true);
        IbvMr mr = peer.mr(64, IbvAccess.ALL);
        try (FabricPort other = peer.wireB.open(InetAddress.getByAddress(RawPeer.B_IP), 5000)) {
            peer.builder.begin(RcOpcode.WRITE_ONLY, false, peer.qp.qpNum(), true, 0, 8)
                    .reth(mr.address(), mr.rkey(), 8);
            other.send(peer.builder.finish(new Icrc(), RawPeer.B_IP, RawPeer.A_IP, 5000,
                    peer.a.getPort()), peer.a);
            waitFor(() -> peer.qp.counters().get(VerbsCounter.DROP_BAD_SOURCE) == 1);
        }
        assertTrue(peer.silentFor(20));
        assertEquals(IbvQpState.RTS, peer.qp.state());
    }

    @Test
    void sourcePortsAreNotCheckedWhenTheDeviceSaysSo() throws Exception {
        open(false);
        IbvMr mr = peer.mr(64, IbvAccess.ALL);
        try (FabricPort other = peer.wireB.open(InetAddress.getByAddress(RawPeer.B_IP), 5000)) {
            peer.builder.begin(RcOpcode.WRITE_ONLY, false, peer.qp.qpNum(), true, 0, 8)
                    .reth(mr.address(), mr.rkey(), 8);
            for (int i = 0; i < 8; i++) {
                peer.builder.buffer().put(peer.builder.payloadOffset() + i, (byte) 9);
            }
            other.send(peer.builder.finish(new Icrc(), RawPeer.B_IP, RawPeer.A_IP, 5000,
                    peer.a.getPort()), peer.a);
            RocePacket ack = peer.receive();
            assertNotNull(ack, "the ACK goes to the QP's peer port");
            assertEquals(Aeth.ACK_UNLIMITED, ack.syndrome);
        }
        assertEquals(9, mr.buffer().get(7));
        assertEquals(0, peer.qp.counters().get(VerbsCounter.DROP_BAD_SOURCE));
    }

    @Test
    void aDestroyedQpStopsReceivingAndTheOthersCarryOn() throws Exception {
        open(true);
        IbvMr mr = peer.mr(64, IbvAccess.ALL);
        dev.virtuoso.spi.verbs.IbvQpInitAttr init = new dev.virtuoso.spi.verbs.IbvQpInitAttr()
                .sendCq(peer.cq).recvCq(peer.cq).maxSendWr(1).maxRecvWr(1);
        dev.virtuoso.spi.verbs.IbvQp second = peer.pd.createQp(init);
        dev.virtuoso.spi.verbs.IbvQp third = peer.pd.createQp(init);
        second.close();
        assertTrue(second.qpNum() >= 16 && second.qpNum() <= 0xFFFFFF, "a 24-bit QPN");
        peer.sendRaw(writeOnly(second.qpNum(), 0, mr, 8));
        waitFor(() -> device().get(VerbsCounter.DROP_UNKNOWN_QP) == 1);
        peer.sendRaw(writeOnly(third.qpNum(), 0, mr, 8));
        waitFor(() -> third.counters().get(VerbsCounter.DROP_BAD_STATE) == 1);
        peer.sendRaw(writeOnly(peer.qp.qpNum(), 0, mr, 8));
        RocePacket ack = peer.receive();
        assertNotNull(ack, "the first QP is still served");
        assertEquals(0, ack.psn);
        assertEquals(RawPeer.PEER_QPN, ack.destQp);
    }

    @Test
    void theDeviceRunsWhileAContextIsOpen() throws Exception {
        open(true);
        SoftRnic rnic = ((SoftContext) peer.ctx).rnic;
        assertTrue(rnic.isRunning());
        dev.virtuoso.spi.verbs.IbvContext second = peer.provider.openDevice("a");
        assertEquals(peer.ctx.udpPort(), second.udpPort());
        assertEquals("a", second.deviceName());
        second.close();
        assertTrue(rnic.isRunning(), "another context is open");
        peer.ctx.close();
        assertTrue(!rnic.isRunning(), "the last context closed");
        dev.virtuoso.spi.verbs.VerbsException e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.virtuoso.spi.verbs.VerbsException.class, () -> rnic.call(x -> null));
        assertEquals(dev.virtuoso.spi.verbs.VerbsException.ENODEV, e.errno());
        dev.virtuoso.spi.verbs.IbvContext again = peer.provider.openDevice("a");
        assertTrue(rnic.isRunning(), "restarted by the next open");
        again.close();
    }
}
