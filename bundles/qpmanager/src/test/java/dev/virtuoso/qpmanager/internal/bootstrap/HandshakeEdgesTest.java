package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameChannel.Frame;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Challenge;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Connect;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Hello;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;

/**
 * One side of the handshake against a scripted peer built from frame channels: what it sends,
 * the ERROR codes it answers with, and that it closes the connection when it gives up.
 */
class HandshakeEdgesTest {
    private static final Duration STEP = Duration.ofSeconds(5);
    private static final long WAIT = 5_000_000_000L;
    private ServerSocketChannel listener;
    private InetSocketAddress address;
    private final RecordingSetup serverSetup = new RecordingSetup(1, List.of(ip("10.0.2.1")));
    private final RecordingSetup clientSetup = new RecordingSetup(2, List.of(ip("10.0.1.1")));

    private static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @BeforeEach
    void listen() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        address = (InetSocketAddress) listener.getLocalAddress();
    }

    @AfterEach
    void close() throws IOException {
        listener.close();
    }

    private static long deadline() {
        return System.nanoTime() + WAIT;
    }

    /** Runs the client in the background; the test plays the server on the accepted channel. */
    private CompletableFuture<Handshake.Result> client(byte[] secret, PathSetup setup) {
        return client(secret, setup, STEP);
    }

    private CompletableFuture<Handshake.Result> client(byte[] secret, PathSetup setup, Duration step) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return Handshake.client(address, secret, List.of(), step, setup);
            } catch (VirtuosoException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        Throwable t = e.getCause();
        return t instanceof IllegalStateException && t.getCause() != null ? t.getCause() : t;
    }

    /** An ERROR frame's code; its text is checked to contain {@code text}. */
    private static int errorCode(Frame f, String text) throws ProtocolException {
        assertEquals(Protocol.ERROR, f.type(), Protocol.typeName(f.type()));
        int code = Fields.u16(f.body());
        String t = Fields.text(f.body());
        assertTrue(t.contains(text), t);
        return code;
    }

    private static void assertClosedByPeer(FrameChannel ch) {
        assertThrows(EOFException.class, () -> ch.receive(deadline()), "the other side closed the connection");
    }

    @Test
    void stepDeadlineIsTheEarlierOfOneStepAndTheOverallDeadline() {
        long now = System.nanoTime();
        long far = now + 60_000_000_000L;
        long step = Handshake.stepDeadline(1_000_000_000L, far);
        assertTrue(step - now >= 1_000_000_000L && step - far < 0, "one step from now");
        long near = now + 1_000_000L;
        assertEquals(near, Handshake.stepDeadline(60_000_000_000L, near), "the overall deadline");
    }

    @Test
    void theClientsHelloSaysWhetherItHoldsASecret() throws Exception {
        for (byte[] secret : new byte[][] {null, "x".getBytes()}) {
            CompletableFuture<Handshake.Result> c = client(secret, clientSetup);
            try (FrameChannel server = FrameChannel.accepted(listener.accept())) {
                Frame f = server.receive(deadline());
                assertEquals(Protocol.HELLO, f.type());
                assertEquals(secret != null, Hello.decode(f.body()).hasSecret());
            }
            assertTrue(failure(c) instanceof VirtuosoException);
        }
    }

    @Test
    void theClientAnswersAMalformedChallengeWithErrorAndCloses() throws Exception {
        CompletableFuture<Handshake.Result> c = client(null, clientSetup);
        try (FrameChannel server = FrameChannel.accepted(listener.accept())) {
            server.receive(deadline());
            server.send(Protocol.CHALLENGE, b -> b.put(new byte[32]).put((byte) 0).put((byte) 0).put((byte) 1),
                    deadline());
            assertEquals(Handshake.E_MALFORMED, errorCode(server.receive(deadline()), "trailing"));
            assertClosedByPeer(server);
        }
        VirtuosoException e = (VirtuosoException) failure(c);
        assertEquals(Reason.HANDSHAKE, e.reason());
    }

    @Test
    void theClientRefusesAServerThatDoesNotAuthenticateAndCloses() throws Exception {
        CompletableFuture<Handshake.Result> c = client("x".getBytes(), clientSetup);
        try (FrameChannel server = FrameChannel.accepted(listener.accept())) {
            server.receive(deadline());
            server.send(Protocol.CHALLENGE, new Challenge(new byte[32], null, List.of(ip("10.0.2.1")))::encode,
                    deadline());
            assertEquals(Handshake.E_AUTH, errorCode(server.receive(deadline()), "does not authenticate"));
            assertClosedByPeer(server);
        }
        assertEquals(Reason.HANDSHAKE, ((VirtuosoException) failure(c)).reason());
        assertEquals(0, clientSetup.offered.size(), "no QP for an unauthenticated server");
    }

    @Test
    void aClientThatTimesOutClosesTheConnection() throws Exception {
        CompletableFuture<Handshake.Result> c = client(null, clientSetup, Duration.ofMillis(300));
        try (FrameChannel server = FrameChannel.accepted(listener.accept())) {
            assertEquals(Protocol.HELLO, server.receive(deadline()).type());
            assertClosedByPeer(server);
        }
        assertEquals(Reason.TIMEOUT, ((VirtuosoException) failure(c)).reason());
    }

    @Test
    void theClientAnswersAnotherVersionWithTheVersionCode() throws Exception {
        CompletableFuture<Handshake.Result> c = client(null, clientSetup);
        try (java.nio.channels.SocketChannel raw = listener.accept()) {
            ByteBuffer hello = ByteBuffer.allocate(Protocol.HEADER_BYTES + 33);
            while (hello.hasRemaining() && raw.read(hello) >= 0) {
                // the client's HELLO, read whole before answering
            }
            ByteBuffer v2 = ByteBuffer.allocate(12);
            FrameHeader.write(v2, Protocol.CHALLENGE, 0);
            v2.put(4, (byte) 3).flip();
            while (v2.hasRemaining()) {
                raw.write(v2);
            }
            try (FrameChannel server = FrameChannel.accepted(raw)) {
                assertEquals(Handshake.E_VERSION, errorCode(server.receive(deadline()), "version 3"));
            }
        }
        assertEquals(Reason.HANDSHAKE, ((VirtuosoException) failure(c)).reason());
    }

    @Test
    void aServerErrorReachesTheClientWithItsReason() throws Exception {
        CompletableFuture<Handshake.Result> c = client(null, clientSetup);
        try (FrameChannel server = FrameChannel.accepted(listener.accept())) {
            server.receive(deadline());
            Handshake.refuseQuietly(server, Handshake.E_NO_PATH, "nothing here");
        }
        VirtuosoException e = (VirtuosoException) failure(c);
        assertEquals(Reason.NO_PATH, e.reason());
        assertTrue(e.getMessage().contains("code 4") && e.getMessage().contains("nothing here"), e.getMessage());
        CompletableFuture<Handshake.Result> c2 = client(null, clientSetup);
        try (FrameChannel server = FrameChannel.accepted(listener.accept())) {
            server.receive(deadline());
            Handshake.refuseQuietly(server, Handshake.E_RESOURCES, "busy");
        }
        assertEquals(Reason.HANDSHAKE, ((VirtuosoException) failure(c2)).reason());
    }

    @Test
    void aClientWhoseSetupThrowsClosesTheConnection() throws Exception {
        PathSetup broken = new PathSetup() {
            @Override
            public List<InetAddress> localAddresses() {
                return clientSetup.localAddresses();
            }

            @Override
            public HandshakeMessages.ReceiveParams params() {
                return clientSetup.params();
            }

            @Override
            public List<PathOffer> offerPaths(List<InetAddress> local, List<InetAddress> remote) {
                throw new IllegalStateException("no QP today");
            }

            @Override
            public void connectPaths(HandshakeMessages.ReceiveParams peer,
                    List<HandshakeMessages.PathAnswer> answers) {
                throw new AssertionError("never reached");
            }

            @Override
            public List<HandshakeMessages.PathAnswer> acceptPaths(HandshakeMessages.ReceiveParams peer,
                    List<PathOffer> offers) {
                throw new AssertionError("never reached");
            }
        };
        CompletableFuture<Handshake.Result> c = client(null, broken);
        try (FrameChannel server = FrameChannel.accepted(listener.accept())) {
            server.receive(deadline());
            server.send(Protocol.CHALLENGE, new Challenge(new byte[32], null, List.of(ip("10.0.2.1")))::encode,
                    deadline());
            assertClosedByPeer(server);
        }
        Throwable t = failure(c);
        assertTrue(t instanceof IllegalStateException && t.getMessage().contains("no QP today"), t.toString());
    }

    /** Plays a client up to ACCEPT; returns the channel for the last step. */
    private FrameChannel clientUpToAccept(byte[] mac) throws Exception {
        FrameChannel ch = FrameChannel.connect(address, deadline());
        ch.send(Protocol.HELLO, new Hello(new byte[32], mac != null)::encode, deadline());
        assertEquals(Protocol.CHALLENGE, ch.receive(deadline()).type());
        Connect connect = new Connect(mac, clientSetup.params(),
                List.of(new PathOffer(ip("10.0.1.1"), ip("10.0.2.1"), 4791, 7, 8)));
        ch.send(Protocol.CONNECT, connect::encode, deadline());
        return ch;
    }

    private CompletableFuture<Handshake.Result> server(byte[] secret) {
        return CompletableFuture.supplyAsync(() -> {
            try (FrameChannel ch = FrameChannel.accepted(listener.accept())) {
                return Handshake.server(ch, secret, STEP, serverSetup);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void theServerRefusesAReadyWithABody() throws Exception {
        CompletableFuture<Handshake.Result> s = server(null);
        try (FrameChannel ch = clientUpToAccept(null)) {
            assertEquals(Protocol.ACCEPT, ch.receive(deadline()).type());
            ch.send(Protocol.READY, b -> b.put((byte) 0), deadline());
            assertEquals(Handshake.E_MALFORMED, errorCode(ch.receive(deadline()), "READY has 1 trailing bytes"));
        }
        VirtuosoException e = (VirtuosoException) failure(s);
        assertEquals(Reason.HANDSHAKE, e.reason());
    }

    @Test
    void theServerRefusesAProofItDidNotAskFor() throws Exception {
        CompletableFuture<Handshake.Result> s = server(null);
        try (FrameChannel ch = clientUpToAccept(new byte[32])) {
            assertEquals(Handshake.E_AUTH, errorCode(ch.receive(deadline()), "unexpected authentication proof"));
        }
        assertTrue(failure(s).getMessage().contains("unexpected authentication proof"));
        assertEquals(0, serverSetup.offered.size(), "no QP for a client that failed authentication");
    }

    @Test
    void theServerAnswersAnotherVersionWithTheVersionCode() throws Exception {
        CompletableFuture<Handshake.Result> s = server(null);
        try (var raw = java.nio.channels.SocketChannel.open(address)) {
            ByteBuffer v3 = ByteBuffer.allocate(12);
            FrameHeader.write(v3, Protocol.HELLO, 0);
            v3.put(4, (byte) 3).flip();
            while (v3.hasRemaining()) {
                raw.write(v3);
            }
            try (FrameChannel ch = FrameChannel.accepted(raw)) {
                assertEquals(Handshake.E_VERSION, errorCode(ch.receive(deadline()), "version 3"));
            }
        }
        assertEquals(Reason.HANDSHAKE, ((VirtuosoException) failure(s)).reason());
    }

    @Test
    void aServerAdvertisesAtMostMaxPathsVnics() throws Exception {
        List<InetAddress> many = new java.util.ArrayList<>();
        for (int i = 0; i < Protocol.MAX_PATHS + 3; i++) {
            many.add(InetAddress.getByAddress(new byte[] {10, 0, 3, (byte) i}));
        }
        RecordingSetup big = new RecordingSetup(1, many);
        CompletableFuture<Handshake.Result> s = CompletableFuture.supplyAsync(() -> {
            try (FrameChannel ch = FrameChannel.accepted(listener.accept())) {
                return Handshake.server(ch, null, STEP, big);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        try (FrameChannel ch = FrameChannel.connect(address, deadline())) {
            ch.send(Protocol.HELLO, new Hello(new byte[32], false)::encode, deadline());
            Frame f = ch.receive(deadline());
            assertEquals(Protocol.CHALLENGE, f.type());
            assertEquals(many.subList(0, Protocol.MAX_PATHS), Challenge.decode(f.body()).vnics());
        }
        assertTrue(failure(s) instanceof VirtuosoException, "the client left");
    }
}
