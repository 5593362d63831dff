package dev.virtuoso.verbs.soft.fabric;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.virtuoso.verbs.soft.wire.DatagramHandler;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * One vNIC's end of the in-process fabric, bound to an (address, UDP port) of its host. Sending
 * copies the datagram once into a pooled buffer, which travels the link and is handed to the
 * receiver's queue; the buffer returns to the pool after the receiver's handler returns.
 */
public final class FabricPort implements WirePort {
    private final FabricWire wire;
    private final FabricNetwork network;
    private final InetSocketAddress local;
    final MpmcRing<Packet> inbox;
    /** Engine thread only: destination address to the link direction that reaches it. */
    private final Map<InetAddress, LinkChannel> routes = new HashMap<>();
    private int routesVersion = -1;
    /** Written by the engine thread only (lazySet), read by anyone. */
    private final AtomicLongArray counters = new AtomicLongArray(PortCounter.values().length);
    private volatile boolean closed;

    FabricPort(FabricWire wire, FabricNetwork network, InetSocketAddress local, int queuePackets) {
        this.wire = wire;
        this.network = network;
        this.local = local;
        this.inbox = new MpmcRing<>(queuePackets);
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    FabricWire wire() {
        return wire;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Sends through the link that connects this address to the destination address. Drops on the
     * link (tail, loss, down, no endpoint) are silent as in a real network: the call returns true.
     *
     * @return false only for local drops: no route, or a datagram above the fabric's maximum size
     */
    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress destination) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        int length = datagram.remaining();
        if (length > network.maxDatagramBytes()) {
            bump(PortCounter.DROPPED_TOO_BIG, 1);
            return false;
        }
        LinkChannel channel = route(destination.getAddress());
        if (channel == null) {
            bump(PortCounter.DROPPED_NO_ROUTE, 1);
            network.countNoRoute();
            return false;
        }
        bump(PortCounter.SENT_DATAGRAMS, 1);
        bump(PortCounter.SENT_BYTES, length);
        long now = System.nanoTime();
        long deliverAt = channel.admit(length, now);
        FabricPort target = deliverAt < 0 ? null : network.boundPort(destination);
        if (target == null) {
            if (deliverAt >= 0) {
                channel.count(LinkCounter.DROPPED_NO_ENDPOINT);
            }
            datagram.position(datagram.limit());
            return true;
        }
        Packet p = network.pool().take();
        p.data.clear();
        p.data.put(datagram);
        p.length = length;
        p.source = local;
        p.target = target;
        p.channel = channel;
        p.epoch = channel.epoch();
        p.deliverAt = deliverAt;
        if (deliverAt - now <= 0 && channel.scheduled.get() == 0) {
            network.deliver(p);
        } else {
            network.schedule(p);
        }
        return true;
    }

    private LinkChannel route(InetAddress destination) {
        int version = network.topologyVersion();
        if (version != routesVersion) {
            routes.clear();
            routesVersion = version;
        }
        LinkChannel channel = routes.get(destination);
        if (channel == null) {
            channel = network.route(local.getAddress(), destination);
            if (channel == null) {
                return null;
            }
            routes.put(destination, channel);
        }
        return channel;
    }

    @Override
    public int receive(DatagramHandler handler, int limit) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        network.deliverDue(); // packets due on rate-limited or delayed links, without the scheduler's wake-up
        int n = 0;
        Packet p;
        while (n < limit && (p = inbox.poll()) != null) {
            n++;
            bump(PortCounter.RECEIVED_DATAGRAMS, 1);
            bump(PortCounter.RECEIVED_BYTES, p.length);
            ByteBuffer data = p.data;
            data.limit(p.length).position(0);
            try {
                handler.onDatagram(data, p.source, local);
            } finally {
                network.pool().release(p);
            }
        }
        return n;
    }

    private void bump(PortCounter counter, long delta) {
        int i = counter.ordinal();
        counters.lazySet(i, counters.get(i) + delta);
    }

    /**
     * @param counter which
     * @return current value
     */
    public long counter(PortCounter counter) {
        return counters.get(counter.ordinal());
    }

    /** @return every counter, in enum order */
    public Map<PortCounter, Long> snapshot() {
        Map<PortCounter, Long> m = new EnumMap<>(PortCounter.class);
        for (PortCounter c : PortCounter.values()) {
            m.put(c, counter(c));
        }
        return m;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        network.unbind(this);
        wire.removePort(this);
        Packet p;
        while ((p = inbox.poll()) != null) {
            network.pool().release(p);
        }
    }

    @Override
    public String toString() {
        return "fabric port " + local.getAddress().getHostAddress() + ":" + local.getPort();
    }
}
