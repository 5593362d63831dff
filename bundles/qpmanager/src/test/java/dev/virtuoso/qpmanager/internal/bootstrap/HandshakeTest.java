package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
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

class HandshakeTest {
    /** Generous per-step limit for exchanges that must succeed (the machine may be loaded). */
    private static final Duration STEP = Duration.ofSeconds(5);
    /** Short limit for the exchanges that must time out. */
    private static final Duration SHORT = Duration.ofMillis(300);
    private ServerSocketChannel listener;
    private InetSocketAddress address;

    private static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private final List<InetAddress> clientVnics = List.of(ip("10.0.1.1"), ip("10.0.1.2"), ip("10.0.1.3"));
    private final List<InetAddress> serverVnics = List.of(ip("10.0.2.1"), ip("10.0.2.2"));

    @BeforeEach
    void listen() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        address = (InetSocketAddress) listener.getLocalAddress();
    }

    @AfterEach
    void close() throws IOException {
        listener.close();
    }

    /** Runs the server handshake on the next accepted connection in the background. */
    private CompletableFuture<Handshake.Result> serve(byte[] secret, RecordingSetup setup) {
        return serve(secret, setup, STEP);
    }

    private CompletableFuture<Handshake.Result> serve(byte[] secret, RecordingSetup setup, Duration step) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                FrameChannel ch = FrameChannel.accepted(listener.accept());
                try {
                    return Handshake.server(ch, secret, step, setup);
                } catch (VirtuosoException e) {
                    ch.close();
                    throw new IllegalStateException(e);
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static VirtuosoException serverFailure(CompletableFuture<Handshake.Result> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        return (VirtuosoException) e.getCause().getCause();
    }

    @Test
    void pairsPathsByIndexAndExchangesEveryQp() throws Exception {
        RecordingSetup server = new RecordingSetup(0x100, serverVnics);
        RecordingSetup client = new RecordingSetup(0x200, clientVnics);
        CompletableFuture<Handshake.Result> s = serve(null, server);
        Handshake.Result c = Handshake.client(address, null, List.of(), STEP, client);
        Handshake.Result r = s.get(5, TimeUnit.SECONDS);
        assertEquals(2, c.pathCount());
        assertEquals(2, r.pathCount());
        assertEquals(ip("10.0.2.2"), client.offered.get(1).remote());
        assertEquals(ip("10.0.1.2"), server.offered.get(1).local());
        assertEquals(0x201, server.offered.get(1).qpn());
        assertEquals(0x101, client.answered.get(1).qpn());
        assertEquals(server.params, c.peer());
        assertEquals(client.params, r.peer());
        c.channel().close();
        r.channel().close();
    }

    @Test
    void remoteAddressesFromOptionsOverrideTheAdvertisedOnes() throws Exception {
        RecordingSetup server = new RecordingSetup(1, serverVnics);
        RecordingSetup client = new RecordingSetup(2, clientVnics);
        CompletableFuture<Handshake.Result> s = serve(null, server);
        Handshake.Result c = Handshake.client(address, null, List.of(ip("10.0.2.2")), STEP, client);
        assertEquals(1, c.pathCount());
        assertEquals(ip("10.0.2.2"), client.offered.get(0).remote());
        s.get(5, TimeUnit.SECONDS).channel().close();
        c.channel().close();
    }

    @Test
    void serverRefusesAddressesItDoesNotServe() throws Exception {
        CompletableFuture<Handshake.Result> s = serve(null, new RecordingSetup(1, serverVnics));
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> Handshake.client(address, null,
                List.of(ip("10.9.9.9")), STEP, new RecordingSetup(2, clientVnics)));
        assertEquals(Reason.NO_PATH, e.reason());
        assertTrue(e.getMessage().contains("10.9.9.9"), e.getMessage());
        assertEquals(Reason.NO_PATH, serverFailure(s).reason());
    }

    @Test
    void matchingSecretsAuthenticateBothWays() throws Exception {
        byte[] secret = "s3cret".getBytes();
        RecordingSetup server = new RecordingSetup(1, serverVnics);
        RecordingSetup client = new RecordingSetup(2, clientVnics);
        CompletableFuture<Handshake.Result> s = serve(secret, server);
        Handshake.Result c = Handshake.client(address, secret.clone(), List.of(), STEP, client);
        Handshake.Result r = s.get(5, TimeUnit.SECONDS);
        // the server only creates QPs for a client whose proof it checked, the client only connects
        // them after checking the server's proof: both sides got through to the paths
        assertEquals(2, c.pathCount());
        assertEquals(2, r.pathCount());
        assertEquals(2, server.offered.size());
        assertEquals(2, client.answered.size());
        assertEquals(client.params, server.peer);
        assertEquals(server.params, client.peer);
        r.channel().close();
        c.channel().close();
    }

    /** A server with these peer caps, the given overall deadline and admission, on the next connection. */
    private CompletableFuture<Handshake.Result> serve(RecordingSetup setup, long deadlineNanos, PeerLimits limits,
            java.util.function.Supplier<String> admission) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                FrameChannel ch = FrameChannel.accepted(listener.accept());
                try {
                    return Handshake.server(ch, null, STEP, deadlineNanos, limits, admission, setup);
                } catch (VirtuosoException e) {
                    ch.close();
                    throw new IllegalStateException(e);
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void clientSizesOverTheServersCapsAreRefusedByNameBeforeAnyQp() throws Exception {
        // the client announces maxReceives 128, slots 16, slotBytes 4096, scratch 128 KiB
        PeerLimits[] caps = {new PeerLimits(64, 4096, 1 << 20, 1 << 20), new PeerLimits(1024, 8, 1 << 20, 1 << 20),
            new PeerLimits(1024, 4096, 1024, 1 << 20), new PeerLimits(1024, 4096, 1 << 20, 4096)};
        String[] names = {"maxReceives 128 exceeds the local limit 64 (peerMaxReceives)",
            "slots 16 exceeds the local limit 8 (peerMaxSlots)", "slotBytes 4096 exceeds the local limit 1024",
            "scratch length 131072 exceeds the local limit 4096 (peerMaxScratchBytes)"};
        for (int i = 0; i < caps.length; i++) {
            RecordingSetup server = new RecordingSetup(1, serverVnics);
            CompletableFuture<Handshake.Result> s = serve(server, System.nanoTime() + STEP.toNanos(), caps[i],
                    () -> null);
            VirtuosoException e = assertThrows(VirtuosoException.class,
                    () -> Handshake.client(address, null, List.of(), STEP, new RecordingSetup(2, clientVnics)));
            assertEquals(Reason.HANDSHAKE, e.reason());
            assertTrue(e.getMessage().contains(names[i]), e.getMessage());
            assertTrue(serverFailure(s).getMessage().contains(names[i]));
            assertEquals(0, server.offered.size(), "no QP created for a client over a cap");
            assertEquals(null, server.peer, "the client's sizes were never handed to the setup");
        }
    }

    @Test
    void serverSizesOverTheClientsCapsAreRefusedBeforeTheyAreUsed() throws Exception {
        RecordingSetup client = new RecordingSetup(2, clientVnics);
        CompletableFuture<Handshake.Result> s = serve(null, new RecordingSetup(1, serverVnics));
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> Handshake.client(address, null, List.of(),
                STEP, System.nanoTime() + STEP.toNanos(), new PeerLimits(100, 4096, 1 << 20, 1 << 20), client));
        assertTrue(e.getMessage().contains("maxReceives 128 exceeds the local limit 100"), e.getMessage());
        assertEquals(null, client.peer, "the server's sizes were never handed to the setup");
        assertTrue(serverFailure(s).getMessage().contains("maxReceives 128"));
    }

    @Test
    void aRefusedAdmissionIsAnErrorBeforeAnyQp() throws Exception {
        RecordingSetup server = new RecordingSetup(1, serverVnics);
        CompletableFuture<Handshake.Result> s = serve(server, System.nanoTime() + STEP.toNanos(), PeerLimits.DEFAULTS,
                () -> "accept queue full");
        VirtuosoException e = assertThrows(VirtuosoException.class,
                () -> Handshake.client(address, null, List.of(), STEP, new RecordingSetup(2, clientVnics)));
        assertTrue(e.getMessage().contains("accept queue full"), e.getMessage());
        serverFailure(s);
        assertEquals(0, server.offered.size());
    }

    @Test
    void theOverallDeadlineEndsAHandshakeBeforeItsSteps() throws Exception {
        // every step may take 5 s, the whole exchange 300 ms: a silent client is dropped at 300 ms
        CompletableFuture<Handshake.Result> s = serve(new RecordingSetup(1, serverVnics),
                System.nanoTime() + SHORT.toNanos(), PeerLimits.DEFAULTS, () -> null);
        try (SocketChannel ch = SocketChannel.open(address)) {
            long t0 = System.nanoTime();
            VirtuosoException e = serverFailure(s);
            assertEquals(Reason.TIMEOUT, e.reason());
            assertTrue(System.nanoTime() - t0 < STEP.toNanos(), "dropped before one step ran out");
        }
    }

    @Test
    void wrongSecretIsRefusedOnBothSides() throws Exception {
        CompletableFuture<Handshake.Result> s = serve("right".getBytes(), new RecordingSetup(1, serverVnics));
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> Handshake.client(address,
                "wrong".getBytes(), List.of(), STEP, new RecordingSetup(2, clientVnics)));
        assertEquals(Reason.HANDSHAKE, e.reason());
        assertTrue(e.getMessage().contains("authentication"), e.getMessage());
        VirtuosoException se = serverFailure(s);
        assertEquals(Reason.HANDSHAKE, se.reason());
    }

    @Test
    void missingSecretOnEitherSideIsRefused() throws Exception {
        CompletableFuture<Handshake.Result> s = serve("x".getBytes(), new RecordingSetup(1, serverVnics));
        VirtuosoException e = assertThrows(VirtuosoException.class,
                () -> Handshake.client(address, null, List.of(), STEP, new RecordingSetup(2, clientVnics)));
        assertTrue(e.getMessage().contains("requires a shared secret"), e.getMessage());
        assertEquals(Reason.HANDSHAKE, serverFailure(s).reason());

        CompletableFuture<Handshake.Result> s2 = serve(null, new RecordingSetup(1, serverVnics));
        VirtuosoException e2 = assertThrows(VirtuosoException.class, () -> Handshake.client(address,
                "x".getBytes(), List.of(), STEP, new RecordingSetup(2, clientVnics)));
        assertTrue(e2.getMessage().contains("does not authenticate"), e2.getMessage());
        assertEquals(Reason.HANDSHAKE, serverFailure(s2).reason());
    }

    /** Sends raw bytes as a client and returns what the server answered before closing. */
    private ByteBuffer rawClient(ByteBuffer request) throws IOException {
        try (SocketChannel ch = SocketChannel.open(address)) {
            ch.write(request);
            ch.shutdownOutput();
            ch.socket().setSoTimeout(3000);
            ByteBuffer reply = ByteBuffer.allocate(4096);
            var in = ch.socket().getInputStream();
            int b;
            while ((b = in.read()) >= 0) {
                reply.put((byte) b);
            }
            return reply.flip();
        }
    }

    private static ByteBuffer frame(int magic, int version, int type, int length, int actualBody) {
        ByteBuffer b = ByteBuffer.allocate(12 + actualBody);
        b.putInt(magic).put((byte) version).put((byte) type).putShort((short) 0).putInt(length);
        return b.position(b.capacity()).flip();
    }

    private static String errorText(ByteBuffer reply) throws ProtocolException {
        assertEquals(Protocol.ERROR, FrameHeader.type(reply, 0));
        reply.position(12);
        Fields.u16(reply);
        return Fields.text(reply);
    }

    @Test
    void wrongVersionGetsAClearError() throws Exception {
        CompletableFuture<Handshake.Result> s = serve(null, new RecordingSetup(1, serverVnics));
        ByteBuffer reply = rawClient(frame(Protocol.MAGIC, 3, Protocol.HELLO, 33, 33));
        assertTrue(errorText(reply).contains("version 3"), errorText(reply));
        VirtuosoException e = serverFailure(s);
        assertEquals(Reason.HANDSHAKE, e.reason());
        assertTrue(e.getMessage().contains("version 3"), e.getMessage());
    }

    @Test
    void badMagicOversizedTruncatedAndWrongTypeAreDropped() throws Exception {
        CompletableFuture<Handshake.Result> s = serve(null, new RecordingSetup(1, serverVnics));
        rawClient(frame(0x12345678, Protocol.VERSION, Protocol.HELLO, 33, 33));
        assertTrue(serverFailure(s).getMessage().contains("magic"));

        s = serve(null, new RecordingSetup(1, serverVnics));
        ByteBuffer reply = rawClient(frame(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 1 << 30, 0));
        assertTrue(errorText(reply).contains("exceeds the limit"), errorText(reply));
        serverFailure(s);

        s = serve(null, new RecordingSetup(1, serverVnics));
        rawClient(frame(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 33, 10));
        VirtuosoException truncated = serverFailure(s);
        assertEquals(Reason.HANDSHAKE, truncated.reason());
        assertTrue(truncated.getMessage().contains("closed"), truncated.getMessage());

        s = serve(null, new RecordingSetup(1, serverVnics));
        reply = rawClient(frame(Protocol.MAGIC, Protocol.VERSION, Protocol.CONNECT, 33, 33));
        assertTrue(errorText(reply).contains("expected HELLO"), errorText(reply));
        serverFailure(s);

        s = serve(null, new RecordingSetup(1, serverVnics));
        reply = rawClient(frame(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 20, 20));
        assertTrue(errorText(reply).contains("truncated"), errorText(reply));
        serverFailure(s);

        s = serve(null, new RecordingSetup(1, serverVnics));
        reply = rawClient(frame(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 40, 40));
        assertTrue(errorText(reply).contains("trailing"), errorText(reply));
        serverFailure(s);
    }

    @Test
    void silentClientTimesOut() throws Exception {
        CompletableFuture<Handshake.Result> s = serve(null, new RecordingSetup(1, serverVnics), SHORT);
        try (SocketChannel ch = SocketChannel.open(address)) {
            long t0 = System.nanoTime();
            VirtuosoException e = serverFailure(s);
            assertEquals(Reason.TIMEOUT, e.reason());
            assertTrue(System.nanoTime() - t0 < 3_000_000_000L);
        }
    }

    /** Accepts one connection and answers the client's HELLO with the given bytes (or nothing). */
    private CompletableFuture<Void> rawServer(ByteBuffer answer) {
        return CompletableFuture.runAsync(() -> {
            try (SocketChannel ch = listener.accept()) {
                ch.read(ByteBuffer.allocate(12 + 33));
                if (answer != null) {
                    ch.write(answer);
                }
                Thread.sleep(800);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void clientRejectsBadServers() throws Exception {
        CompletableFuture<Void> s = rawServer(frame(Protocol.MAGIC, 7, Protocol.CHALLENGE, 0, 0));
        VirtuosoException e = assertThrows(VirtuosoException.class,
                () -> Handshake.client(address, null, List.of(), STEP, new RecordingSetup(2, clientVnics)));
        assertEquals(Reason.HANDSHAKE, e.reason());
        assertTrue(e.getMessage().contains("version 7"), e.getMessage());
        s.get(5, TimeUnit.SECONDS);

        ByteBuffer hugeCount = ByteBuffer.allocate(12 + 34);
        FrameHeader.write(hugeCount, Protocol.CHALLENGE, 34);
        hugeCount.put(new byte[32]).put((byte) 0).put((byte) 200).flip();
        s = rawServer(hugeCount);
        e = assertThrows(VirtuosoException.class,
                () -> Handshake.client(address, null, List.of(), STEP, new RecordingSetup(2, clientVnics)));
        assertTrue(e.getMessage().contains("count out of range"), e.getMessage());
        s.get(5, TimeUnit.SECONDS);

        s = rawServer(null);
        e = assertThrows(VirtuosoException.class,
                () -> Handshake.client(address, null, List.of(), SHORT, new RecordingSetup(2, clientVnics)));
        assertEquals(Reason.TIMEOUT, e.reason());
        s.get(5, TimeUnit.SECONDS);
    }

    @Test
    void connectingToNothingFailsWithIo() throws Exception {
        listener.close();
        VirtuosoException e = assertThrows(VirtuosoException.class,
                () -> Handshake.client(address, null, List.of(), STEP, new RecordingSetup(2, clientVnics)));
        assertTrue(e.reason() == Reason.IO || e.reason() == Reason.TIMEOUT, e.reason().toString());
    }
}
