package dev.virtuoso.verbs.soft.udp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.virtuoso.verbs.soft.wire.DatagramHandler;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * One vNIC's UDP socket, bound to (vNIC address, RoCEv2 port), so every datagram it sends carries
 * the vNIC address as source IP. The socket stays unconnected (one socket talks to every peer of
 * that vNIC); see {@link #dontFragment()} for the IPv4 header fields the ICRC covers.
 *
 * <p>Receives into one reusable direct buffer; the JDK hands back the same sender address object
 * while the sender does not change, so steady-state receiving allocates nothing.
 */
public final class UdpWirePort implements WirePort {
    /** Larger than any IPv4/IPv6 UDP payload, so nothing is ever truncated. */
    static final int RECEIVE_BUFFER_BYTES = 65536;

    private final UdpWire wire;
    private final DatagramChannel channel;
    private final InetSocketAddress local;
    private final ByteBuffer rx = ByteBuffer.allocateDirect(RECEIVE_BUFFER_BYTES);
    /** Written by the engine thread only (lazySet), read by anyone. */
    private final AtomicLongArray counters = new AtomicLongArray(UdpCounter.values().length);
    private final boolean dontFragment;
    /**
     * Engine thread: false once a receive found the socket empty, until the wire's selector reports
     * it readable again ({@link UdpWire#pollReadiness}, {@link UdpWire#await}); an idle port then
     * costs no system call per duty cycle.
     */
    private boolean readable = true;
    private volatile String lastSendError = "";

    UdpWirePort(UdpWire wire, DatagramChannel channel, boolean dontFragment) throws IOException {
        this.wire = wire;
        this.channel = channel;
        this.dontFragment = dontFragment;
        this.local = (InetSocketAddress) channel.getLocalAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    /**
     * Whether the socket has IP_DONTFRAGMENT set (only possible on Java 19+). If so, on Linux
     * every IPv4 datagram leaves with DF set and IP ID 0, and a datagram above the path MTU is
     * refused (counted as {@link UdpCounter#DROPPED_SEND_ERROR}) instead of fragmented. If not,
     * the kernel picks the IP ID (a counter), which a sender cannot know for its ICRC.
     *
     * @return true if DF is forced
     */
    public boolean dontFragment() {
        return dontFragment;
    }

    DatagramChannel channel() {
        return channel;
    }

    /**
     * @return false when the socket buffer is full or the kernel refused the datagram (both
     *     counted; {@link #lastSendError()} tells why for the latter)
     * @throws ClosedChannelException if the port is closed
     */
    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress destination) throws IOException {
        int length = datagram.remaining();
        try {
            if (channel.send(datagram, destination) == 0 && length > 0) {
                bump(UdpCounter.DROPPED_SEND_BUFFER_FULL, 1);
                return false;
            }
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException | UnsupportedAddressTypeException | UnresolvedAddressException e) {
            // what a NIC does with an unroutable frame: drop it; the transport retransmits or fails
            bump(UdpCounter.DROPPED_SEND_ERROR, 1);
            lastSendError = destination + ": " + e;
            return false;
        }
        bump(UdpCounter.SENT_DATAGRAMS, 1);
        bump(UdpCounter.SENT_BYTES, length);
        return true;
    }

    @Override
    public int receive(DatagramHandler handler, int limit) throws IOException {
        if (!readable) {
            return 0; // drained, and no poll or await of the wire has seen it readable since
        }
        int n = 0;
        while (n < limit) {
            rx.clear();
            SocketAddress source = channel.receive(rx);
            if (source == null) {
                readable = false;
                break;
            }
            rx.flip();
            n++;
            bump(UdpCounter.RECEIVED_DATAGRAMS, 1);
            bump(UdpCounter.RECEIVED_BYTES, rx.remaining());
            handler.onDatagram(rx, (InetSocketAddress) source, local);
        }
        return n;
    }

    /** Engine thread: the wire's selector found the socket readable. */
    void markReadable() {
        readable = true;
    }

    private void bump(UdpCounter counter, long delta) {
        int i = counter.ordinal();
        counters.lazySet(i, counters.get(i) + delta);
    }

    /**
     * @param counter which
     * @return current value
     */
    public long counter(UdpCounter counter) {
        return counters.get(counter.ordinal());
    }

    /** @return every counter, in enum order */
    public Map<UdpCounter, Long> snapshot() {
        Map<UdpCounter, Long> m = new EnumMap<>(UdpCounter.class);
        for (UdpCounter c : UdpCounter.values()) {
            m.put(c, counter(c));
        }
        return m;
    }

    /** @return the destination and exception of the last refused send, empty if none */
    public String lastSendError() {
        return lastSendError;
    }

    /**
     * @return SO_RCVBUF as granted by the kernel (Linux reports twice the usable size)
     * @throws IOException if the port is closed
     */
    public int receiveBufferBytes() throws IOException {
        return channel.getOption(StandardSocketOptions.SO_RCVBUF);
    }

    /**
     * @return SO_SNDBUF as granted by the kernel
     * @throws IOException if the port is closed
     */
    public int sendBufferBytes() throws IOException {
        return channel.getOption(StandardSocketOptions.SO_SNDBUF);
    }

    /** @return true while open */
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing a datagram socket releases it whatever close reports
        }
        wire.removePort(this);
    }

    @Override
    public String toString() {
        return "udp port " + local.getAddress().getHostAddress() + ":" + local.getPort();
    }
}
