package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;

/** Connecting through the connector: bad peers are dropped, the listener carries on. */
class ConnectTest {
    /** How long a call waits for a provider or device that never comes (ProviderWaitTest covers the wait). */
    private static final java.time.Duration SHORT = java.time.Duration.ofMillis(100);

    @Test
    void badPeersAreDroppedAndTheListenerCarriesOn() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            byte[] secret = "open sesame".getBytes();
            MultipathListener l = f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Fabric.options().device("b").sharedSecret(secret).build());
            VirtuosoException wrong = assertThrows(VirtuosoException.class, () -> f.connector.connect(l.localAddress(),
                    Fabric.options().device("a").sharedSecret("guess".getBytes()).build()));
            assertEquals(Reason.HANDSHAKE, wrong.reason());
            VirtuosoException none = assertThrows(VirtuosoException.class,
                    () -> f.connector.connect(l.localAddress(), Fabric.options().device("a").build()));
            assertEquals(Reason.HANDSHAKE, none.reason());
            try (SocketChannel garbage = SocketChannel.open(l.localAddress())) {
                garbage.write(ByteBuffer.wrap("GET / HTTP/1.0\r\n\r\n".getBytes()));
                ByteBuffer reply = ByteBuffer.allocate(512);
                garbage.socket().setSoTimeout(5000);
                int n = garbage.socket().getInputStream().read(reply.array());
                assertTrue(n >= 12, "an ERROR frame before the drop");
            }
            assertNull(l.accept(10, TimeUnit.MILLISECONDS), "no connection from bad peers");
            assertEquals(0, f.connector.connections().size());

            MultipathConnection c = f.connector.connect(l.localAddress(),
                    Fabric.options().device("a").sharedSecret(secret).build());
            MultipathConnection s = l.accept(10, TimeUnit.SECONDS);
            Pair p = new Pair(new MultipathConnection[] {c, s}, 1 << 20);
            p.write(1 << 20);
            assertEquals(3, ((Listener) l).failures());
            l.close();
            assertThrows(VirtuosoException.class, () -> l.accept(1, TimeUnit.MILLISECONDS));
            p.write(100);
        }
    }

    @Test
    void missingProviderDeviceOrAddressIsReported() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            InetSocketAddress nowhere = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
            VirtuosoException p = assertThrows(VirtuosoException.class,
                    () -> f.connector.connect(nowhere, Fabric.options().provider("disni").providerTimeout(SHORT).build()));
            assertEquals(Reason.PROVIDER_UNAVAILABLE, p.reason());
            VirtuosoException d = assertThrows(VirtuosoException.class,
                    () -> f.connector.connect(nowhere, Fabric.options().device("nic9").providerTimeout(SHORT).build()));
            assertEquals(Reason.PROVIDER_UNAVAILABLE, d.reason());
            VirtuosoException a = assertThrows(VirtuosoException.class, () -> f.connector.connect(nowhere,
                    Fabric.options().device("a").localAddresses(Fabric.ip("192.0.2.1")).build()));
            assertEquals(Reason.NO_PATH, a.reason());
            VirtuosoException io = assertThrows(VirtuosoException.class,
                    () -> f.connector.connect(nowhere, Fabric.options().device("a").build()));
            assertTrue(io.reason() == Reason.IO || io.reason() == Reason.TIMEOUT, io.toString());
            VirtuosoException l = assertThrows(VirtuosoException.class, () -> f.connector.listen(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), Fabric.options().device("x").providerTimeout(SHORT).build()));
            assertEquals(Reason.PROVIDER_UNAVAILABLE, l.reason());
        }
    }

    @Test
    void remoteAddressesThePeerDoesNotServeAreRefused() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            MultipathListener l = f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Fabric.options().device("b").localAddresses(f.bAddresses.get(0)).build());
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> f.connector.connect(l.localAddress(),
                    Fabric.options().device("a").remoteAddresses(f.bAddresses.get(1)).build()));
            assertEquals(Reason.NO_PATH, e.reason());
            MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
            assertEquals(1, c.pathStats().size(), "pairs = min(2 local, 1 advertised)");
            c.close();
            l.close();
        }
    }
}
