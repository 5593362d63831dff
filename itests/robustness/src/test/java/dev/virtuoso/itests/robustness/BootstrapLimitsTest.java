package dev.virtuoso.itests.robustness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.qpmanager.internal.bootstrap.Authenticator;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Connect;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Hello;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.engine.BootstrapLimits;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * The TCP bootstrap under a slowloris (hundreds of idle connections, loopback only, bounded in
 * count and time) and against a peer announcing huge sizes, with the connector's default
 * {@link BootstrapLimits}. The idle connections come from other loopback source addresses
 * (127.0.0.2 and up), as an attacker's would come from other hosts; the legitimate client comes
 * from 127.0.0.1.
 */
@Timeout(120)
class BootstrapLimitsTest {
    /** Idle connections of the slowloris. */
    private static final int IDLE = 200;
    /** A legitimate client must be connected within this time under attack. */
    private static final long CONNECT_BOUND_NANOS = TimeUnit.SECONDS.toNanos(2);

    private FabricNetwork network;
    private SoftVerbsProvider soft;
    private final AtomicInteger serverDeviceOpens = new AtomicInteger();
    private Connector connector;
    private MultipathListener listener;
    private final List<SocketChannel> idle = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        network = new FabricNetwork("bootstrap-limits", 5);
        List<InetAddress> a = MultipathPair.addresses("10.9.3.", 1, 2);
        List<InetAddress> b = MultipathPair.addresses("10.9.4.", 1, 2);
        network.addHost("a", a.toArray(new InetAddress[0]));
        network.addHost("b", b.toArray(new InetAddress[0]));
        for (int i = 0; i < 2; i++) {
            network.link(a.get(i), b.get(i), LinkSpec.parse(""));
        }
        soft = new SoftVerbsProvider(SoftRnicConfig.builder("a").addresses(a).fabric(network, "a").build(),
                SoftRnicConfig.builder("b").addresses(b).fabric(network, "b").build());
        VerbsProvider counting = new VerbsProvider() {
            @Override
            public String name() {
                return soft.name();
            }

            @Override
            public List<RdmaDevice> devices() throws VerbsException {
                return soft.devices();
            }

            @Override
            public IbvContext openDevice(String deviceName) throws VerbsException {
                if ("b".equals(deviceName)) {
                    serverDeviceOpens.incrementAndGet();
                }
                return soft.openDevice(deviceName);
            }
        };
        connector = new Connector(n -> counting, new DecomposerComponent(), new ReassemblerComponent(),
                new PolicyRegistry(), CoreSettings.DEFAULTS);
        listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                MultipathPair.options().device("b").build());
    }

    @AfterEach
    void tearDown() {
        for (SocketChannel ch : idle) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        connector.close();
        soft.close();
        network.close();
    }

    /** Opens an idle connection to the listener from {@code source} (skips if it cannot be bound). */
    private SocketChannel idleFrom(String source) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        } catch (IOException e) {
            ch.close();
            Assumptions.abort("cannot bind loopback source address " + source + " (" + e.getMessage()
                    + "): this host's loopback is not 127.0.0.0/8");
        }
        ch.connect(listener.localAddress());
        ch.configureBlocking(false);
        idle.add(ch);
        return ch;
    }

    /** @return how many idle connections the listener closed (read sees EOF or a reset) */
    private int closedByListener(List<SocketChannel> chs) {
        int closed = 0;
        ByteBuffer b = ByteBuffer.allocate(16);
        for (SocketChannel ch : chs) {
            try {
                if (ch.read(b.clear()) < 0) {
                    closed++;
                }
            } catch (IOException reset) {
                closed++;
            }
        }
        return closed;
    }

    /** Connects a legitimate client from 127.0.0.1, asserts it took under 2 s, moves 64 KiB. */
    private void assertALegitimateClientConnectsWithin2s() throws Exception {
        long t0 = System.nanoTime();
        MultipathConnection c = connector.connect(listener.localAddress(), MultipathPair.options().device("a").build());
        MultipathConnection s = listener.accept(2, TimeUnit.SECONDS);
        long took = System.nanoTime() - t0;
        assertNotNull(s, "the listener accepted the legitimate client");
        assertTrue(took < CONNECT_BOUND_NANOS, "legitimate client connected in " + took / 1_000_000 + " ms");
        System.out.println("bootstrap-limits: legitimate client connected in " + took / 1_000_000 + " ms beside "
                + idle.size() + " idle connections");
        ByteBuffer src = ByteBuffer.allocateDirect(64 << 10);
        MultipathPair.fill(src, 5);
        MultipathPair.writeAndVerify(c, s, src, ByteBuffer.allocateDirect(64 << 10), 30);
        c.close();
        s.close();
    }

    @Test
    void twoHundredIdleConnectionsFromManySourcesDoNotDelayALegitimateClient() throws Exception {
        int perSource = BootstrapLimits.DEFAULTS.maxPerSource();
        for (int i = 0; i < IDLE; i++) {
            idleFrom("127.0.0." + (2 + i / perSource));
        }
        assertALegitimateClientConnectsWithin2s();
        assertEquals(0, closedByListener(idle), "every idle connection within the caps is still held, not dropped");
    }

    @Test
    void twoHundredIdleConnectionsFromOneSourceAreCappedAndDoNotDelayALegitimateClient() throws Exception {
        for (int i = 0; i < IDLE; i++) {
            idleFrom("127.0.0.2");
        }
        int cap = BootstrapLimits.DEFAULTS.maxPerSource();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int closed;
        while ((closed = closedByListener(idle)) < IDLE - cap && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertEquals(IDLE - cap, closed, "all but the per-source cap closed at once");
        assertALegitimateClientConnectsWithin2s();
    }

    /** HELLO and CONNECT as a hostile client would send them, announcing {@code params}. */
    private static byte[] helloAndConnect(ReceiveParams params) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(2 * (Protocol.HEADER_BYTES + Protocol.MAX_HANDSHAKE_BODY));
        int at = out.position();
        out.position(at + Protocol.HEADER_BYTES);
        new Hello(Authenticator.nonce(), false).encode(out);
        FrameHeader.write(out.duplicate().position(at), Protocol.HELLO, out.position() - at - Protocol.HEADER_BYTES);
        at = out.position();
        out.position(at + Protocol.HEADER_BYTES);
        new Connect(null, params, List.of(new PathOffer(MultipathPair.ip("10.9.3.1"), MultipathPair.ip("10.9.4.1"),
                4791, 0x12, 0x345))).encode(out);
        FrameHeader.write(out.duplicate().position(at), Protocol.CONNECT, out.position() - at - Protocol.HEADER_BYTES);
        byte[] b = new byte[out.flip().remaining()];
        out.get(b);
        return b;
    }

    /** Sends the bytes and returns everything the listener answers before it closes. */
    private String exchange(byte[] request) throws IOException {
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        try (Socket s = new Socket()) {
            s.connect(listener.localAddress(), 5000);
            s.setSoTimeout(5000);
            s.getOutputStream().write(request);
            byte[] buf = new byte[4096];
            int n;
            try {
                while ((n = s.getInputStream().read(buf)) >= 0) {
                    answer.write(buf, 0, n);
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the listener kept the connection open", e);
            }
        }
        return answer.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void hugePeerSizesAreRefusedByNameBeforeAnythingIsAllocated() throws Exception {
        // maxReceives 2^20 would size about 60 MB of tables on this side; slots 2^16 up to the
        // protocol's maximum; each is refused by name, and the server never opens its device
        ReceiveParams[] huge = {new ReceiveParams(1 << 20, 8, 1024, 1024), new ReceiveParams(64, 1 << 16, 1024, 1024)};
        String[] named = {"maxReceives 1048576 exceeds the local limit 16384 (peerMaxReceives)",
            "slots 65536 exceeds the local limit 4096 (peerMaxSlots)"};
        for (int i = 0; i < huge.length; i++) {
            String answer = exchange(helloAndConnect(huge[i]));
            assertTrue(answer.contains(named[i]), "ERROR names the size: " + answer);
        }
        assertEquals(0, serverDeviceOpens.get(), "no verbs resources were allocated for a refused peer");
        assertEquals(null, listener.accept(0, TimeUnit.MILLISECONDS));
        assertALegitimateClientConnectsWithin2s();
        assertEquals(1, serverDeviceOpens.get(), "the legitimate client's connection opened the device once");
    }

    @Test
    void aListenerClosedDuringAHandshakeStopsItsThreads() throws Exception {
        SocketChannel ch = idleFrom("127.0.0.2");
        ch.configureBlocking(true);
        ch.write(ByteBuffer.wrap(helloAndConnect(new ReceiveParams(64, 8, 1024, 1024))).limit(Protocol.HEADER_BYTES + 33));
        Thread.sleep(200);
        listener.close();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String n = t.getName();
            assertTrue(!(n.startsWith("virtuoso-listen-" + listener.localAddress().getPort())
                    || n.startsWith("virtuoso-handshake-" + listener.localAddress().getPort())) || !t.isAlive(),
                    "thread left running after close: " + n);
        }
        ch.configureBlocking(false);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (closedByListener(List.of(ch)) == 0 && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertEquals(1, closedByListener(List.of(ch)), "the connection in its handshake was closed");
    }
}
