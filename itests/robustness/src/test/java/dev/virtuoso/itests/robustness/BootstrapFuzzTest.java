package dev.virtuoso.itests.robustness;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Connect;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Seeded fuzzing of the qpmanager's bootstrap listener over TCP: the regression corpus
 * ({@code fuzz-corpus/bootstrap/*.hex}) and mutations of a real client's HELLO (bit flips,
 * truncation, oversized and wrong-version headers, frames out of order, trailing garbage). Every
 * bad stream is rejected: the listener closes the connection within its handshake timeout and
 * accepts no connection for it; afterwards a good client still connects and moves data.
 */
class BootstrapFuzzTest {
    private static final Duration SERVER_STEP_TIMEOUT = Duration.ofMillis(400);
    private static final int RANDOM_CASES = 24;

    private FabricNetwork network;
    private MultipathPair pair;

    @BeforeEach
    void setUp() throws Exception {
        network = new FabricNetwork("bootstrap-fuzz", 3);
        List<InetAddress> a = MultipathPair.addresses("10.9.1.", 1, 2);
        List<InetAddress> b = MultipathPair.addresses("10.9.2.", 1, 2);
        network.addHost("a", a.toArray(new InetAddress[0]));
        network.addHost("b", b.toArray(new InetAddress[0]));
        for (int i = 0; i < 2; i++) {
            network.link(a.get(i), b.get(i), LinkSpec.parse(""));
        }
        SoftVerbsProvider provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addresses(a).fabric(network, "a").build(),
                SoftRnicConfig.builder("b").addresses(b).fabric(network, "b").build());
        pair = new MultipathPair(provider, SERVER_STEP_TIMEOUT);
    }

    @AfterEach
    void tearDown() {
        pair.close();
        network.close();
    }

    /** Captures the first frame a real client sends (its HELLO) with a listener that never answers. */
    private byte[] realHello() throws Exception {
        try (ServerSocketChannel fake = ServerSocketChannel.open()) {
            fake.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread client = new Thread(() -> {
                try {
                    pair.connector.connect((InetSocketAddress) fake.getLocalAddress(),
                            MultipathPair.options().handshakeTimeout(Duration.ofSeconds(2)).device("a").build())
                            .close();
                } catch (Exception expected) {
                    // the fake listener never answers: the client gives up
                }
            }, "virtuoso-fuzz-client-1");
            client.setDaemon(true);
            client.start();
            try (SocketChannel ch = fake.accept()) {
                ch.socket().setSoTimeout(5000);
                ByteBuffer header = ByteBuffer.allocate(Protocol.HEADER_BYTES);
                readFully(ch, header);
                int body = header.getInt(8);
                assertTrue(body >= 0 && body <= Protocol.MAX_HANDSHAKE_BODY, "odd HELLO length " + body);
                ByteBuffer all = ByteBuffer.allocate(Protocol.HEADER_BYTES + body);
                all.put(header.flip());
                readFully(ch, all);
                assertTrue(header.getInt(0) == Protocol.MAGIC && header.get(5) == Protocol.HELLO,
                        "not a HELLO: " + HexFormat.of().formatHex(all.array()));
                return all.array();
            } finally {
                client.join(5000);
            }
        }
    }

    private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        java.io.InputStream in = ch.socket().getInputStream();
        while (b.hasRemaining()) {
            int n = in.read(b.array(), b.position(), b.remaining());
            if (n < 0) {
                throw new IOException("closed after " + b.position() + " bytes");
            }
            b.position(b.position() + n);
        }
    }

    /**
     * Sends {@code bytes} and asserts the listener closes the connection (after at most an ERROR
     * frame) within a few handshake timeouts, and that no connection came out of it.
     */
    private byte[] assertRejected(String what, byte[] bytes) throws Exception {
        java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
        try (Socket s = new Socket()) {
            s.connect(pair.listener.localAddress(), 5000);
            s.setSoTimeout(5000);
            try {
                s.getOutputStream().write(bytes);
                s.getOutputStream().flush();
            } catch (IOException closedEarly) {
                // the listener may reset the connection before it read everything: rejected
            }
            byte[] sink = new byte[4096];
            int received = 0;
            try {
                int n;
                while ((n = s.getInputStream().read(sink)) >= 0) {
                    received += n;
                    answer.write(sink, 0, n);
                    assertTrue(received <= 2 * Protocol.HEADER_BYTES + Protocol.MAX_TEXT_BYTES + 64,
                            what + ": the listener answers more than one ERROR frame");
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError(what + ": the listener kept the connection open", e);
            } catch (IOException reset) {
                // a reset is a clean rejection too
            }
        }
        MultipathConnection leaked = pair.listener.accept(0, TimeUnit.MILLISECONDS);
        if (leaked != null) {
            leaked.close();
            throw new AssertionError(what + ": produced a connection");
        }
        return answer.toByteArray();
    }

    private static byte[] header(int magic, int version, int type, int flags, int length) {
        return ByteBuffer.allocate(Protocol.HEADER_BYTES).putInt(magic).put((byte) version).put((byte) type)
                .putShort((short) flags).putInt(length).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = new byte[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** HELLO, then a well-formed CONNECT whose probe scratch region is {@code scratch}. */
    private byte[] helloAndConnect(byte[] hello, ScratchRegion scratch) throws Exception {
        ReceiveParams params = new ReceiveParams(64, 8, 1024, 1024, scratch);
        PathOffer path = new PathOffer(InetAddress.getByName("10.0.1.1"), InetAddress.getByName("10.0.2.1"), 4791,
                0x12, 0x345);
        ByteBuffer body = ByteBuffer.allocate(Protocol.MAX_HANDSHAKE_BODY);
        new Connect(null, params, List.of(path)).encode(body);
        body.flip();
        byte[] connect = new byte[body.remaining()];
        body.get(connect);
        return concat(hello, concat(header(Protocol.MAGIC, Protocol.VERSION, Protocol.CONNECT, 0, connect.length),
                connect));
    }

    /**
     * The probe scratch region a client advertises in CONNECT (where the server's path monitor will
     * RDMA WRITE): oversized, negative, wrapping the address space, or empty with an address or key.
     * Each is refused with an ERROR naming the scratch region, and no connection comes of it.
     */
    @Test
    void hostileScratchRegionsInConnectAreRejectedByName() throws Exception {
        byte[] hello = realHello();
        ScratchRegion[] hostile = {
            new ScratchRegion(0x10_0000L, 7, HandshakeMessages.MAX_SCRATCH_BYTES + 1),
            new ScratchRegion(0x10_0000L, 7, -4096),
            new ScratchRegion(-4096L, 7, 128 << 10),
            new ScratchRegion(0x10_0000L, 0, 0),
            new ScratchRegion(0, 7, 0),
        };
        for (ScratchRegion bad : hostile) {
            byte[] answer = assertRejected("CONNECT with scratch " + bad, helloAndConnect(hello, bad));
            String text = new String(answer, java.nio.charset.StandardCharsets.ISO_8859_1);
            assertTrue(text.contains("scratch"), "CONNECT with scratch " + bad + ": the ERROR names it: "
                    + HexFormat.of().formatHex(answer));
        }
        assertAGoodClientStillConnects(64 << 10, 7);
    }

    @Test
    void corpusAndMutatedHandshakesAreRejectedAndTheListenerKeepsWorking() throws Exception {
        int corpus = 0;
        for (String name : SoftRnicFuzzTest.Corpus.list("fuzz-corpus/bootstrap")) {
            StringBuilder hex = new StringBuilder();
            for (String line : SoftRnicFuzzTest.Corpus.lines("fuzz-corpus/bootstrap/" + name)) {
                hex.append(line.replaceAll("\\s+", ""));
            }
            assertRejected(name, HexFormat.of().parseHex(hex));
            corpus++;
        }
        assertTrue(corpus >= 6, "bootstrap corpus missing: " + corpus);

        byte[] hello = realHello();
        int body = hello.length - Protocol.HEADER_BYTES;
        List<String> names = new ArrayList<>();
        List<byte[]> cases = new ArrayList<>();
        names.add("wrong version 2");
        cases.add(concat(header(Protocol.MAGIC, 2, Protocol.HELLO, 0, body),
                java.util.Arrays.copyOfRange(hello, Protocol.HEADER_BYTES, hello.length)));
        names.add("oversized body, announced and sent");
        cases.add(concat(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 0, Protocol.MAX_HANDSHAKE_BODY + 1),
                new byte[Protocol.MAX_HANDSHAKE_BODY + 1]));
        names.add("oversized body, 2 GiB announced");
        cases.add(header(Protocol.MAGIC, Protocol.VERSION, Protocol.HELLO, 0, Integer.MAX_VALUE));
        names.add("truncated HELLO");
        cases.add(java.util.Arrays.copyOf(hello, hello.length - 1));
        names.add("HELLO then a garbage CONNECT");
        cases.add(concat(hello, concat(header(Protocol.MAGIC, Protocol.VERSION, Protocol.CONNECT, 0, 40),
                new byte[40])));
        names.add("HELLO then READY out of order");
        cases.add(concat(hello, header(Protocol.MAGIC, Protocol.VERSION, Protocol.READY, 0, 0)));
        SplittableRandom r = new SplittableRandom(0xB007);
        for (int i = 0; i < RANDOM_CASES; i++) {
            byte[] m = hello.clone();
            switch (r.nextInt(4)) {
                case 0 -> {
                    int at = r.nextInt(Protocol.HEADER_BYTES, m.length);
                    m[at] ^= (byte) (1 << r.nextInt(8));
                    names.add("HELLO body bit flip at " + at);
                }
                case 1 -> {
                    int at = r.nextInt(Protocol.HEADER_BYTES);
                    m[at] ^= (byte) r.nextInt(1, 256);
                    names.add("HELLO header byte " + at + " changed");
                }
                case 2 -> {
                    m = java.util.Arrays.copyOf(m, r.nextInt(1, m.length));
                    names.add("HELLO truncated to " + m.length);
                }
                default -> {
                    byte[] junk = new byte[r.nextInt(1, 3000)];
                    for (int k = 0; k < junk.length; k++) {
                        junk[k] = (byte) r.nextInt();
                    }
                    m = r.nextBoolean() ? junk : concat(m, junk);
                    names.add("random bytes (" + junk.length + ")");
                }
            }
            cases.add(m);
        }
        for (int i = 0; i < cases.size(); i++) {
            assertRejected(names.get(i), cases.get(i));
        }

        assertAGoodClientStillConnects(256 << 10, 99);
    }

    /** After the hostile streams: a good client connects and an MP_WRITE of {@code bytes} is byte-exact. */
    private void assertAGoodClientStillConnects(int bytes, long seed) throws Exception {
        MultipathConnection[] cs = pair.connect();
        ByteBuffer src = ByteBuffer.allocateDirect(bytes);
        ByteBuffer dst = ByteBuffer.allocateDirect(bytes);
        MultipathPair.fill(src, seed);
        MultipathPair.writeAndVerify(cs[0], cs[1], src, dst, 60);
        cs[0].close();
        cs[1].close();
    }
}
