package dev.virtuoso.verbs.soft.fabric;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.BindException;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import dev.virtuoso.verbs.soft.wire.Wire;

/**
 * A device's {@link Wire} onto a {@link FabricNetwork}, limited to the addresses of one host.
 * The engine thread parks in {@link #await}; {@link #wakeup()} and packet deliveries unpark it,
 * and only when it is parked, so a busy engine costs its producers no system call.
 */
public final class FabricWire implements Wire {
    private static final VarHandle PENDING;

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(FabricWire.class, "pending", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final FabricNetwork network;
    private final FabricHost host;
    private volatile FabricPort[] ports = new FabricPort[0];
    private volatile Thread owner;
    private volatile boolean parked;
    @SuppressWarnings("unused") // through PENDING
    private volatile boolean pending;
    private volatile boolean closed;

    FabricWire(FabricNetwork network, FabricHost host) {
        this.network = network;
        this.host = host;
    }

    /** @return the host whose addresses this wire may bind */
    public FabricHost host() {
        return host;
    }

    /** @return the network */
    public FabricNetwork network() {
        return network;
    }

    /**
     * @throws BindException if the address is not one of the host's, or the (address, port) is
     *     already bound
     */
    @Override
    public synchronized FabricPort open(InetAddress localAddress, int udpPort) throws IOException {
        if (closed) {
            throw new IOException("fabric wire of host " + host.name() + " is closed");
        }
        if (!host.owns(localAddress)) {
            throw new BindException(localAddress.getHostAddress() + " is not an address of fabric host "
                    + host.name() + " " + host.addresses());
        }
        FabricPort port = network.bind(this, localAddress, udpPort);
        FabricPort[] grown = Arrays.copyOf(ports, ports.length + 1);
        grown[grown.length - 1] = port;
        ports = grown;
        return port;
    }

    synchronized void removePort(FabricPort port) {
        FabricPort[] current = ports;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == port) {
                FabricPort[] shrunk = new FabricPort[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                ports = shrunk;
                return;
            }
        }
    }

    @Override
    public void await(long timeoutNanos) throws IOException {
        if (closed) {
            throw new IOException("fabric wire of host " + host.name() + " is closed");
        }
        Thread self = Thread.currentThread();
        if (owner != self) {
            owner = self;
        }
        parked = true;
        if ((boolean) PENDING.getAndSet(this, false) || hasInput() || timeoutNanos <= 0) {
            parked = false;
            return;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        long left = timeoutNanos;
        do {
            LockSupport.parkNanos(this, left);
            // consume wakeups that arrived while parked; later ones stay pending for the next await.
            // parkNanos may also return for no reason (or for an unpark meant for an earlier use of
            // this thread): park again for the rest of the timeout
            if ((boolean) PENDING.getAndSet(this, false) || hasInput() || closed || self.isInterrupted()) {
                break;
            }
            left = deadline - System.nanoTime();
        } while (left > 0);
        parked = false;
    }

    private boolean hasInput() {
        for (FabricPort port : ports) {
            if (!port.inbox.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void wakeup() {
        pending = true;
        if (parked) {
            Thread t = owner;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Called after a packet was queued to one of this wire's ports. */
    void signal() {
        wakeup();
    }

    @Override
    public void close() {
        FabricPort[] toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = ports;
        }
        for (FabricPort port : toClose) {
            port.close();
        }
        network.removeWire(this);
        wakeup();
    }

    @Override
    public String toString() {
        return "fabric wire " + network.name() + "/" + host.name();
    }
}
