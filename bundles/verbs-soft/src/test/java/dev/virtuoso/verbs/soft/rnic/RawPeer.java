package dev.virtuoso.verbs.soft.rnic;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

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
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.verbs.conformance.Rig;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.FabricPort;
import dev.virtuoso.verbs.soft.fabric.FabricWire;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;
import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * One soft RNIC (host {@code a}, 10.0.0.1) with an RC QP in RTS whose peer is the test itself: a
 * raw fabric port on host {@code b} (10.0.0.2, UDP 4791, QPN {@link #PEER_QPN}) that receives
 * the QP's packets one at a time and sends hand-built ones back. The QP's requester and responder
 * are thereby driven packet by packet, with nothing else deciding when an ACK, NAK or response
 * arrives. Path MTU 1024.
 */
final class RawPeer implements AutoCloseable {
    static final int PEER_QPN = 0x4242;
    static final int MTU = 1024;
    static final byte[] A_IP = {10, 0, 0, 1};
    static final byte[] B_IP = {10, 0, 0, 2};
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    final FabricNetwork network;
    final SoftVerbsProvider provider;
    final IbvContext ctx;
    final IbvPd pd;
    final IbvCq cq;
    final IbvQp qp;
    final IbvSrq srq;
    final FabricWire wireB;
    final FabricPort port;
    final PacketBuilder builder = new PacketBuilder();
    private final Icrc icrc = new Icrc();
    final InetSocketAddress a;
    private final ByteBuffer copy = ByteBuffer.allocate(8192);

    /**
     * @param config changes to the device's configuration
     * @param rts the RTS attributes (sqPsn, timeout, retry counts, max_rd_atomic)
     * @param rqPsn first PSN the QP's responder expects
     * @param maxDestRdAtomic the responder's READ limit
     * @param minRnrTimer the RNR timer code the responder sends
     */
    RawPeer(UnaryOperator<SoftRnicConfig.Builder> config, IbvQpAttr rts, int rqPsn,
            int maxDestRdAtomic, int minRnrTimer) throws Exception {
        this(config, rts, rqPsn, maxDestRdAtomic, minRnrTimer, false);
    }

    /** @param withSrq whether the QP takes its receives from a shared receive queue {@link #srq} */
    RawPeer(UnaryOperator<SoftRnicConfig.Builder> config, IbvQpAttr rts, int rqPsn,
            int maxDestRdAtomic, int minRnrTimer, boolean withSrq) throws Exception {
        network = new FabricNetwork("raw-peer", 1);
        network.addHost("a", "10.0.0.1");
        network.addHost("b", "10.0.0.2");
        network.link("a", "b", LinkSpec.UNLIMITED);
        provider = new SoftVerbsProvider(
                config.apply(SoftRnicConfig.builder("a").fabric(network, "a")).build());
        wireB = network.wire("b");
        port = wireB.open(InetAddress.getByAddress(B_IP), 4791);
        ctx = provider.openDevice("a");
        pd = ctx.allocPd();
        cq = ctx.createCq(256, null);
        srq = withSrq ? pd.createSrq(8, 2) : null;
        qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq).srq(srq).maxSendWr(64)
                .maxRecvWr(64)
                .maxSendSge(2).maxRecvSge(2).maxInlineData(64));
        toRts(rts, rqPsn, maxDestRdAtomic, minRnrTimer);
        a = new InetSocketAddress(InetAddress.getByAddress(A_IP), ctx.udpPort());
    }

    private void toRts(IbvQpAttr rts, int rqPsn, int maxDestRdAtomic, int minRnrTimer) throws Exception {
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(IbvAccess.ALL), IbvQpAttr.MASK_INIT);
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.MTU_1024)
                .destQpNum(PEER_QPN).rqPsn(rqPsn).maxDestRdAtomic(maxDestRdAtomic)
                .minRnrTimer(minRnrTimer);
        rtr.ahAttr().dgid(InetAddress.getByAddress(B_IP)).sgidIndex(0).udpPort(4791);
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        qp.modifyQp(rts.qpState(IbvQpState.RTS), IbvQpAttr.MASK_RTS);
    }

    /** After a reset: INIT, RTR and RTS again as {@link #withSqPsn} sets them up, sending from {@code sqPsn}. */
    void reconnect(int sqPsn) throws Exception {
        toRts(new IbvQpAttr().sqPsn(sqPsn).timeout(0).retryCnt(7).rnrRetry(7).maxRdAtomic(4), 0, 4, 1);
    }

    /** Default device, timeout off, retry counts as given, rqPsn 0, 4 READs, RNR code 1. */
    static RawPeer withSqPsn(int sqPsn, int retryCnt, int rnrRetry) throws Exception {
        return new RawPeer(b -> b, new IbvQpAttr().sqPsn(sqPsn).timeout(0).retryCnt(retryCnt)
                .rnrRetry(rnrRetry).maxRdAtomic(4), 0, 4, 1);
    }

    IbvMr mr(int size, int access) throws Exception {
        return pd.regMr(ByteBuffer.allocateDirect(size), access);
    }

    /** @return the next packet the QP sent, decoded over a private copy, or null after 5 s */
    RocePacket receive() throws Exception {
        return receive(WAIT_NANOS);
    }

    /** @return the next packet within {@code nanos}, or null */
    RocePacket receive(long nanos) throws Exception {
        RocePacket p = new RocePacket();
        boolean[] got = new boolean[1];
        long end = System.nanoTime() + nanos;
        do {
            port.receive((d, s, t) -> {
                ByteBuffer c = ByteBuffer.allocate(d.remaining());
                c.put(0, d, d.position(), d.remaining());
                got[0] = p.decode(c, 0, c.capacity());
            }, 1);
            if (got[0]) {
                return p;
            }
            wireB.await(1_000_000);
        } while (System.nanoTime() - end < 0);
        return null;
    }

    /** @return whether nothing arrives within {@code millis} */
    boolean silentFor(long millis) throws Exception {
        return receive(TimeUnit.MILLISECONDS.toNanos(millis)) == null;
    }

    /** Finishes the packet begun on {@link #builder} and sends it to the QP. */
    void send() throws Exception {
        ByteBuffer d = builder.finish(icrc, B_IP, A_IP, 4791, a.getPort());
        if (!port.send(d, a)) {
            throw new AssertionError("fabric refused a datagram");
        }
    }

    /** Sends {@code datagram} as it is from the peer's port. */
    void sendRaw(ByteBuffer datagram) throws Exception {
        if (!port.send(datagram, a)) {
            throw new AssertionError("fabric refused a datagram");
        }
    }

    /** Sends an ACK or NAK with {@code syndrome} at {@code psn}. */
    void ack(int syndrome, int psn) throws Exception {
        builder.begin(dev.virtuoso.verbs.soft.packet.RcOpcode.ACKNOWLEDGE, false, qp.qpNum(), false,
                psn, 0).aeth(syndrome, 0);
        send();
    }

    List<IbvWc> expect(int n) throws Exception {
        return Rig.expect(cq, n);
    }

    List<IbvWc> quiet(long millis) throws Exception {
        return Rig.quiet(cq, millis);
    }

    @Override
    public void close() {
        try {
            qp.close();
            cq.close();
            pd.close();
            ctx.close();
        } catch (Exception e) {
            // the provider's close releases what is left
        }
        port.close();
        provider.close();
        network.close();
    }
}
