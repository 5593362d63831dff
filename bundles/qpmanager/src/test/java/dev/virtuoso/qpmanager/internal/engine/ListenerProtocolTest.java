package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages;
import dev.virtuoso.qpmanager.internal.bootstrap.PeerLimits;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;

/**
 * A {@link Listener} against raw sockets that speak, break or never start the bootstrap protocol:
 * what its thread does with each first frame (wait for more, hand it to a handshake thread, close),
 * its counters and last failure, the pending cap, and closing with connections queued.
 */
class ListenerProtocolTest {
    private Fabric f;

    @BeforeEach
    void fabric() {
        f = new Fabric("rate=0");
    }

    @AfterEach
    void close() {
        f.close();
    }

    private Listener listen(int maxPending, long deadlineMillis, Duration handshakeTimeout) throws VirtuosoException {
        f.connector.bootstrapLimits(new BootstrapLimits(maxPending, 2, 8, deadlineMillis, 4, 64, PeerLimits.DEFAULTS));
        return (Listener) f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Fabric.options().handshakeTimeout(handshakeTimeout).device("b").build());
    }

    private Listener listen() throws VirtuosoException {
        return listen(4, 10_000, Duration.ofSeconds(5));
    }

    private static Socket socket(InetSocketAddress to) throws IOException {
        Socket s = new Socket();
        s.connect(to, 5000);
        s.setSoTimeout(5000);
        return s;
    }

    private static byte[] header(int magic, int version, int type, int flags, int body) {
        ByteBuffer b = ByteBuffer.allocate(Protocol.HEADER_BYTES);
        b.putInt(magic).put((byte) version).put((byte) type).putShort((short) flags).putInt(body);
        return b.array();
    }

    /** Reads one frame: @return its type, after checking its header */
    private static int readFrame(Socket s) throws Exception {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] h = new byte[Protocol.HEADER_BYTES];
        in.readFully(h);
        int len = FrameHeader.check(ByteBuffer.wrap(h), 0, Protocol.MAX_HANDSHAKE_BODY);
        in.readFully(new byte[len]);
        return FrameHeader.type(ByteBuffer.wrap(h), 0);
    }

    /** @return true if the listener closed the socket (EOF or reset) within the socket's timeout */
    private static boolean closedByListener(Socket s) throws IOException {
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static void await(LongSupplier counter, long value, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (counter.getAsLong() < value) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + ": " + counter.getAsLong() + " < " + value + " after 5 s");
            }
            Thread.sleep(5);
        }
    }

    private void connectsAndIsAccepted(Listener l) throws Exception {
        MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
        MultipathConnection s = l.accept(10, TimeUnit.SECONDS);
        assertNotNull(s);
        c.close();
        s.close();
    }

    @Test
    void aPeerClosingBeforeItsFirstFrameIsAFailureByAddressAndFreesItsPendingPlace() throws Exception {
        Listener l = listen(1, 10_000, Duration.ofSeconds(5));
        assertNull(l.lastFailure());
        try (Socket s = socket(l.localAddress())) {
            s.getOutputStream().write(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 0, 40), 0, 5);
            s.getOutputStream().flush();
        }
        await(l::failures, 1, "the close is seen");
        assertEquals(1, l.failures());
        assertEquals("peer " + InetAddress.getLoopbackAddress().getHostAddress() + " closed before its first frame",
                l.lastFailure());
        assertEquals(0, l.expired());
        assertEquals(0, l.droppedBusy());
        connectsAndIsAccepted(l);
        assertEquals(0, l.droppedBusy(), "the one pending place was free again");
        l.close();
    }

    @Test
    void aBadHeaderGoesStraightToAHandshakeThreadWhichAnswersWithAnError() throws Exception {
        Listener l = listen(1, 10_000, Duration.ofSeconds(5));
        try (Socket s = socket(l.localAddress())) {
            s.getOutputStream().write(header(0x01020304, Protocol.VERSION, Protocol.HELLO, 0, 0));
            assertEquals(Protocol.ERROR, readFrame(s), "the peer is told why");
            assertTrue(closedByListener(s));
        }
        await(l::failures, 1, "the failed handshake is counted");
        assertNotNull(l.lastFailure());
        assertTrue(l.lastFailure().contains("magic"), l.lastFailure());
        assertEquals(0, l.expired(), "a whole header is not left waiting for the deadline");
        connectsAndIsAccepted(l);
        l.close();
    }

    @Test
    void aWrongVersionAndSetFlagsAreRefused() throws Exception {
        Listener l = listen();
        try (Socket s = socket(l.localAddress())) {
            s.getOutputStream().write(header(Protocol.MAGIC, Protocol.VERSION + 1, Protocol.HELLO, 0, 0));
            assertEquals(Protocol.ERROR, readFrame(s));
        }
        try (Socket s = socket(l.localAddress())) {
            s.getOutputStream().write(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 1, 0));
            assertEquals(Protocol.ERROR, readFrame(s));
        }
        await(l::failures, 2, "both failed");
        assertEquals(0, l.expired());
        l.close();
    }

    @Test
    void aHeaderInPiecesIsWaitedForAndAnEmptyBodyIsHandedOver() throws Exception {
        Listener l = listen();
        try (Socket s = socket(l.localAddress())) {
            OutputStream out = s.getOutputStream();
            byte[] h = header(Protocol.MAGIC, Protocol.VERSION, Protocol.CONNECT, 0, 0);
            out.write(h, 0, 7);
            out.flush();
            Thread.sleep(50);
            out.write(h, 7, 5);
            out.flush();
            assertEquals(Protocol.ERROR, readFrame(s), "a CONNECT before HELLO is refused");
        }
        await(l::failures, 1, "counted");
        assertEquals(0, l.expired());
        l.close();
    }

    @Test
    void aSmallBodyIsReadByTheListenerInPiecesThenHandedOver() throws Exception {
        Listener l = listen();
        try (Socket s = socket(l.localAddress())) {
            OutputStream out = s.getOutputStream();
            out.write(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 0, 128));
            out.write(new byte[100]);
            out.flush();
            Thread.sleep(50);
            out.write(new byte[28]);
            out.flush();
            assertEquals(Protocol.ERROR, readFrame(s), "a HELLO of zeros is malformed");
        }
        await(l::failures, 1, "counted");
        assertEquals(0, l.expired());
        l.close();
    }

    @Test
    void aLargeFirstFrameIsHandedOverAfterItsHeader() throws Exception {
        Listener l = listen();
        try (Socket s = socket(l.localAddress())) {
            OutputStream out = s.getOutputStream();
            out.write(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 0, 129));
            out.flush();
            Thread.sleep(50);
            out.write(new byte[129]);
            out.flush();
            assertEquals(Protocol.ERROR, readFrame(s));
        }
        await(l::failures, 1, "counted");
        assertEquals(0, l.expired());
        l.close();
    }

    @Test
    void aBodyOverTheHandshakeLimitIsRefused() throws Exception {
        Listener l = listen();
        try (Socket s = socket(l.localAddress())) {
            s.getOutputStream().write(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 0,
                    Protocol.MAX_HANDSHAKE_BODY + 1));
            assertEquals(Protocol.ERROR, readFrame(s));
        }
        await(l::failures, 1, "counted");
        assertTrue(l.lastFailure().contains("exceeds"), l.lastFailure());
        l.close();
    }

    @Test
    void theFirstFrameIsDueWithinOneHandshakeStepWhenThatComesBeforeTheDeadline() throws Exception {
        Listener l = listen(1, 10_000, Duration.ofMillis(200));
        try (Socket s = socket(l.localAddress())) {
            s.getOutputStream().write(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 0, 40), 0, 11);
            assertTrue(closedByListener(s), "closed after one step, long before the 10 s deadline");
        }
        assertEquals(1, l.expired());
        await(l::failures, 1, "counted after the socket is closed");
        assertEquals(1, l.failures());
        assertEquals("peer " + InetAddress.getLoopbackAddress().getHostAddress() + " sent no complete first frame "
                + "in time (handshake timeout 200 ms, deadline 10000 ms)", l.lastFailure());
        connectsAndIsAccepted(l);
        assertEquals(1, l.expired(), "only the silent one expired");
        l.close();
    }

    @Test
    void overThePendingCapAConnectionIsClosedAtOnceAsBusy() throws Exception {
        Listener l = listen(1, 10_000, Duration.ofSeconds(5));
        try (Socket idle = socket(l.localAddress()); Socket over = socket(l.localAddress())) {
            assertTrue(closedByListener(over));
            assertEquals(1, l.droppedBusy());
            assertEquals(0, l.droppedPerSource());
            idle.setSoTimeout(200);
            assertFalse(closedByListener(idle), "the one within the cap stays");
        }
        assertEquals(1, l.droppedBusy());
        l.close();
    }

    @Test
    void aWrongSecretFailsTheHandshakeOnBothSides() throws Exception {
        f.connector.bootstrapLimits(new BootstrapLimits(4, 2, 8, 10_000, 4, 64, PeerLimits.DEFAULTS));
        Listener l = (Listener) f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Fabric.options().sharedSecret("one secret".getBytes()).device("b").build());
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> f.connector.connect(l.localAddress(),
                Fabric.options().sharedSecret("another secret".getBytes()).device("a").build()));
        assertEquals(Reason.HANDSHAKE, e.reason());
        await(l::failures, 1, "counted on the listener");
        assertNotNull(l.lastFailure());
        assertNull(l.accept(0, TimeUnit.MILLISECONDS), "nothing was accepted");
        assertEquals(0, f.connector.connections().size(), "no connection is left on either side");
        l.close();
    }

    @Test
    void closingWithAnEstablishedConnectionQueuedClosesItAndLaterAcceptsFail() throws Exception {
        Listener l = listen();
        MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (f.connector.connections().size() < 2 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(2, f.connector.connections().size(), "both ends are established");
        l.close();
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> l.accept(1, TimeUnit.SECONDS));
        assertEquals(Reason.CLOSED, e.reason());
        MultipathConnection server = null;
        for (MultipathConnection m : f.connector.connections()) {
            if (m != c) {
                server = m;
            }
        }
        assertTrue(server == null || server.state() != ConnectionState.ESTABLISHED,
                "the queued server end is closed: " + (server == null ? null : server.state()));
        assertThrows(IOException.class, () -> {
            try (Socket s = new Socket()) {
                s.connect(l.localAddress(), 1000);
            }
        }, "the bootstrap port is closed");
        l.close();
        c.close();
    }

    @Test
    void acceptWaitsAtMostItsTimeoutAndReturnsNullWhenNothingCame() throws Exception {
        Listener l = listen();
        assertNull(l.accept(1, TimeUnit.MILLISECONDS));
        assertNull(l.accept(0, TimeUnit.MILLISECONDS));
        l.close();
        l.close();
        assertThrows(VirtuosoException.class, () -> l.accept(0, TimeUnit.MILLISECONDS));
    }

    @Test
    void oneHandshakeThreadServesTheQueueInTurnAndAFullQueueDropsTheNextAsBusy() throws Exception {
        f.connector.bootstrapLimits(new BootstrapLimits(2, 1, 8, 10_000, 4, 64, PeerLimits.DEFAULTS));
        Listener l = (Listener) f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Fabric.options().device("b").build());
        try (Socket a = socket(l.localAddress())) {
            ByteBuffer hello = ByteBuffer.allocate(Protocol.HEADER_BYTES + Protocol.NONCE_BYTES + 1);
            FrameHeader.write(hello, Protocol.HELLO, Protocol.NONCE_BYTES + 1);
            new HandshakeMessages.Hello(new byte[Protocol.NONCE_BYTES], false).encode(hello);
            a.getOutputStream().write(hello.array());
            assertEquals(Protocol.CHALLENGE, readFrame(a), "the only handshake thread now waits for a's CONNECT");
            Socket b = socket(l.localAddress());
            Socket c = socket(l.localAddress());
            b.getOutputStream().write(header(0x01020304, Protocol.VERSION, Protocol.HELLO, 0, 0));
            c.getOutputStream().write(header(0x01020304, Protocol.VERSION, Protocol.HELLO, 0, 0));
            b.setSoTimeout(200);
            assertThrows(SocketTimeoutException.class, () -> b.getInputStream().read(),
                    "no second handshake thread answers b");
            b.setSoTimeout(5000);
            try (Socket d = socket(l.localAddress())) {
                d.getOutputStream().write(header(0x01020304, Protocol.VERSION, Protocol.HELLO, 0, 0));
                assertTrue(closedByListener(d), "the ready queue (maxPending) is full: closed at once");
                await(l::droppedBusy, 1, "dropped as busy");
            }
            a.close();
            assertEquals(Protocol.ERROR, readFrame(b), "b's turn came once a's handshake ended");
            assertEquals(Protocol.ERROR, readFrame(c));
            b.close();
            c.close();
        }
        await(l::failures, 3, "a, b and c failed");
        assertEquals(1, l.droppedBusy());
        assertEquals(0, l.expired());
        connectsAndIsAccepted(l);
        l.close();
    }
}
