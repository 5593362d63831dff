package dev.virtuoso.itests.robustness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;
import dev.virtuoso.verbs.soft.udp.UdpWire;
import dev.virtuoso.verbs.soft.wire.DatagramHandler;
import dev.virtuoso.verbs.soft.wire.Wire;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * A UDP wire that lets a test see what a host on the path sees: the last packet sent to every
 * (address, port, QPN), with the memory key and address of the last RETH. The forger of
 * {@link ForgedPacketTest} reads it to aim at live QPNs and PSNs.
 */
final class TapWire implements Wire {
    /** What was last seen going to one QP. */
    record Seen(InetSocketAddress to, int qpn, boolean request, int psn, long va, int rkey,
            long dmaLength) {
    }

    private final UdpWire delegate;
    private final Map<String, Seen> seen;

    TapWire(Map<String, Seen> seen) throws IOException {
        this.delegate = new UdpWire();
        this.seen = seen;
    }

    static Map<String, Seen> newTable() {
        return new ConcurrentHashMap<>();
    }

    static List<Seen> snapshot(Map<String, Seen> table) {
        return new ArrayList<>(table.values());
    }

    @Override
    public WirePort open(InetAddress localAddress, int udpPort) throws IOException {
        WirePort port = delegate.open(localAddress, udpPort);
        RocePacket decoded = new RocePacket();
        return new WirePort() {
            @Override
            public InetSocketAddress localAddress() {
                return port.localAddress();
            }

            @Override
            public boolean send(ByteBuffer datagram, InetSocketAddress destination) throws IOException {
                if (decoded.decode(datagram, datagram.position(), datagram.remaining())) {
                    record(decoded, destination);
                }
                return port.send(datagram, destination);
            }

            @Override
            public int receive(DatagramHandler handler, int limit) throws IOException {
                return port.receive(handler, limit);
            }

            @Override
            public void close() {
                port.close();
            }
        };
    }

    private void record(RocePacket p, InetSocketAddress to) {
        String key = to + "/" + p.destQp;
        boolean request = p.is(RcOpcode.REQUEST);
        Seen before = seen.get(key);
        long va = before != null ? before.va() : 0;
        int rkey = before != null ? before.rkey() : 0;
        long dma = before != null ? before.dmaLength() : 0;
        if (p.is(RcOpcode.RETH)) {
            va = p.va;
            rkey = p.rkey;
            dma = p.dmaLength;
        }
        seen.put(key, new Seen(to, p.destQp, request, p.psn, va, rkey, dma));
    }

    @Override
    public void await(long timeoutNanos) throws IOException {
        delegate.await(timeoutNanos);
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
