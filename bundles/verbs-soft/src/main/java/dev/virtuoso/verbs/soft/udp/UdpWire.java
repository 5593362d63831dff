package dev.virtuoso.verbs.soft.udp;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.virtuoso.verbs.soft.wire.Wire;

/**
 * The real-network {@link Wire}: one non-blocking UDP socket per vNIC address, all registered with
 * one selector in which the engine thread parks. Works wherever the JVM's network namespace has
 * the addresses: loopback aliases, veth pairs between namespaces, real NICs between hosts.
 *
 * <p>{@link #wakeup()} touches the selector only while the engine is parked in it, so posting
 * threads cost a busy engine no system call.
 */
public final class UdpWire implements Wire {
    /** The RoCEv2 UDP port. */
    public static final int ROCE_PORT = 4791;

    private static final VarHandle PENDING;
    /** Marks the port of a key the selector found readable (see {@link UdpWirePort#receive}). */
    private static final Consumer<SelectionKey> MARK_READABLE = key -> ((UdpWirePort) key.attachment()).markReadable();
    /** jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT (Java 19+), null where absent. */
    private static final SocketOption<Boolean> DONT_FRAGMENT = dontFragmentOption();

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(UdpWire.class, "pending", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static SocketOption<Boolean> dontFragmentOption() {
        try {
            // the platform loader finds jdk.net from an OSGi bundle too, with no Import-Package
            Class<?> c = ClassLoader.getPlatformClassLoader().loadClass("jdk.net.ExtendedSocketOptions");
            return (SocketOption<Boolean>) c.getField("IP_DONTFRAGMENT").get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @return true if this JVM can set IP_DONTFRAGMENT (Java 19+); on Linux the sockets then use
     *     IP_PMTUDISC_DO, so every IPv4 datagram leaves with DF set and IP ID 0
     */
    public static boolean canSetDontFragment() {
        return DONT_FRAGMENT != null;
    }

    private static final System.Logger LOG = System.getLogger(UdpWire.class.getName());

    private final UdpWireOptions options;
    private final Selector selector;
    private boolean bufferWarningLogged;
    private final List<UdpWirePort> ports = new ArrayList<>();
    private volatile boolean parked;
    @SuppressWarnings("unused") // through PENDING
    private volatile boolean pending;
    private volatile boolean closed;

    /**
     * Creates a wire with {@link UdpWireOptions#DEFAULTS}.
     *
     * @throws IOException if no selector can be opened
     */
    public UdpWire() throws IOException {
        this(UdpWireOptions.DEFAULTS);
    }

    /**
     * @param options socket settings
     * @throws IOException if no selector can be opened
     */
    public UdpWire(UdpWireOptions options) throws IOException {
        this.options = options;
        this.selector = Selector.open();
    }

    /**
     * Binds a UDP socket to (address, port).
     *
     * @param localAddress a local address of this network namespace (the vNIC)
     * @param udpPort {@link #ROCE_PORT} normally; another port so several instances share a host;
     *     0 for a free one
     * @throws java.net.BindException if the address is not local or the port is taken
     */
    @Override
    public UdpWirePort open(InetAddress localAddress, int udpPort) throws IOException {
        DatagramChannel ch = DatagramChannel.open(localAddress instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferBytes());
            ch.setOption(StandardSocketOptions.SO_SNDBUF, options.sendBufferBytes());
            boolean dontFragment = false;
            if (DONT_FRAGMENT != null && ch.supportedOptions().contains(DONT_FRAGMENT)) {
                // DF with IP ID 0: the header the ICRC covers becomes predictable
                ch.setOption(DONT_FRAGMENT, true);
                dontFragment = ch.getOption(DONT_FRAGMENT);
            }
            ch.configureBlocking(false);
            ch.bind(new InetSocketAddress(localAddress, udpPort));
            UdpWirePort port;
            synchronized (this) {
                if (closed) {
                    throw new IOException("UDP wire is closed");
                }
                port = new UdpWirePort(this, ch, dontFragment);
                ch.register(selector, SelectionKey.OP_READ, port);
                ports.add(port);
                warnIfBufferCapped(port);
            }
            // a select already in progress only sees the new socket after it returns
            if (parked) {
                selector.wakeup();
            }
            return port;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Linux reports twice the usable size; a capped buffer overflows under bursts (go-back-N). */
    private void warnIfBufferCapped(UdpWirePort port) throws IOException {
        int granted = port.receiveBufferBytes() / 2;
        if (!bufferWarningLogged && granted < options.receiveBufferBytes() / 2) {
            bufferWarningLogged = true;
            LOG.log(System.Logger.Level.WARNING, "UDP receive buffer of " + port + " is " + granted
                    + " bytes, requested " + options.receiveBufferBytes()
                    + ": raise net.core.rmem_max (sysctl) or bursts beyond it are dropped and retransmitted");
        }
    }

    synchronized void removePort(UdpWirePort port) {
        ports.remove(port);
    }

    /** @return the ports currently open */
    public synchronized List<UdpWirePort> ports() {
        return List.copyOf(ports);
    }

    /**
     * Parks in the selector. The selector counts in milliseconds: a timeout below one millisecond
     * waits up to one millisecond.
     */
    @Override
    public void await(long timeoutNanos) throws IOException {
        if (closed) {
            throw new IOException("UDP wire is closed");
        }
        parked = true;
        try {
            if ((boolean) PENDING.getAndSet(this, false)) {
                return;
            }
            if (timeoutNanos <= 0) {
                selector.selectNow(MARK_READABLE);
            } else {
                selector.select(MARK_READABLE, Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
            }
            // consume wakeups that arrived while parked; later ones stay pending for the next await
            PENDING.getAndSet(this, false);
        } catch (ClosedSelectorException e) {
            throw new IOException("UDP wire is closed", e);
        } finally {
            parked = false;
        }
    }

    /**
     * One {@code epoll_wait} for all ports instead of an empty {@code recvfrom} per idle port: with
     * ten vNICs most of the engine's receive calls found nothing.
     */
    @Override
    public void pollReadiness() throws IOException {
        try {
            selector.selectNow(MARK_READABLE);
        } catch (ClosedSelectorException e) {
            throw new IOException("UDP wire is closed", e);
        }
    }

    @Override
    public void wakeup() {
        pending = true;
        if (parked) {
            selector.wakeup();
        }
    }

    /**
     * @param counter which
     * @return the sum over the open ports
     */
    public long counter(UdpCounter counter) {
        long sum = 0;
        for (UdpWirePort p : ports()) {
            sum += p.counter(counter);
        }
        return sum;
    }

    @Override
    public void close() {
        List<UdpWirePort> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = List.copyOf(ports);
        }
        for (UdpWirePort p : toClose) {
            p.close();
        }
        try {
            selector.close();
        } catch (IOException e) {
            // the selector's descriptors are released regardless
        }
    }

    @Override
    public String toString() {
        return "udp wire " + ports();
    }
}
