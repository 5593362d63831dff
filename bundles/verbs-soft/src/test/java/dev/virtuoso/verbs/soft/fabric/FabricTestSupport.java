package dev.virtuoso.verbs.soft.fabric;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Two hosts A (10.0.0.1, 10.0.1.1) and B (10.0.0.2, 10.0.1.2), a port on each first address. */
final class FabricTestSupport implements AutoCloseable {
    static final int PORT = 4791;
    final FabricNetwork net;
    final FabricWire wireA;
    final FabricWire wireB;
    final FabricPort a;
    final FabricPort b;
    private final ByteBuffer out = ByteBuffer.allocateDirect(8192);

    FabricTestSupport(long seed, String linkSpec) throws IOException {
        net = new FabricNetwork("test", seed);
        net.addHost("A", "10.0.0.1", "10.0.1.1");
        net.addHost("B", "10.0.0.2", "10.0.1.2");
        if (linkSpec != null) {
            net.link("10.0.0.1", "10.0.0.2", LinkSpec.parse(linkSpec));
        }
        wireA = net.wire("A");
        wireB = net.wire("B");
        a = wireA.open(addr("10.0.0.1"), PORT);
        b = wireB.open(addr("10.0.0.2"), PORT);
    }

    static InetAddress addr(String literal) {
        return AddressLiterals.parse(literal);
    }

    FabricLink link() {
        return net.findLink("10.0.0.1", "10.0.0.2").orElseThrow();
    }

    /** Sends a datagram of {@code size} bytes whose first 4 bytes are {@code index}. */
    boolean send(FabricPort from, FabricPort to, int index, int size) throws IOException {
        out.clear();
        out.putInt(index);
        out.position(size);
        out.flip();
        return from.send(out, to.localAddress());
    }

    /** Receives until {@code count} datagrams arrived or {@code timeoutMillis} passed. */
    static List<Integer> receive(FabricWire wire, FabricPort port, int count, long timeoutMillis)
            throws IOException {
        List<Integer> got = new ArrayList<>();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (got.size() < count && System.nanoTime() - deadline < 0) {
            if (port.receive((d, s, dst) -> got.add(d.getInt(d.position())), 64) == 0) {
                wire.await(1_000_000L);
            }
        }
        return got;
    }

    @Override
    public void close() {
        net.close();
    }
}
