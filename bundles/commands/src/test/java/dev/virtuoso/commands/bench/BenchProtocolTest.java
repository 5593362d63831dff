package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.RemoteMemory;

class BenchProtocolTest {

    private final ByteBuffer buf = ByteBuffer.allocateDirect(2048);

    @Test
    void roundTrips() {
        BenchProtocol.Hello h = new BenchProtocol.Hello(BenchOptions.Op.READ, List.of(2, 4096), List.of(1000, 10), false, false);
        int n = BenchProtocol.writeHello(buf, h);
        assertEquals(h, BenchProtocol.readHello(buf, n));
        assertEquals(1010, h.totalMessages());
        RemoteMemory r = new RemoteMemory(0x1234_5678_9abcL, 77, 1 << 20);
        assertEquals(r, BenchProtocol.readReady(buf, BenchProtocol.writeReady(buf, r)));
        BenchProtocol.readDone(buf, BenchProtocol.writeDone(buf));
        BenchProtocol.Hello w = new BenchProtocol.Hello(BenchOptions.Op.WRITE, List.of(1 << 20), List.of(4), true, false);
        assertEquals(w, BenchProtocol.readHello(buf, BenchProtocol.writeHello(buf, w)), "a warm-up HELLO says so");
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readDone(buf, 8), "a HELLO is not a DONE");
        for (boolean warmup : new boolean[] {false, true}) {
            BenchProtocol.Hello lat = new BenchProtocol.Hello(BenchOptions.Op.SEND, List.of(8, 4096), List.of(10, 10),
                    warmup, true);
            assertEquals(lat, BenchProtocol.readHello(buf, BenchProtocol.writeHello(buf, lat)),
                    "a latency HELLO says so (warm-up " + warmup + ")");
        }
    }

    @Test
    void aWriteLatencyHelloCarriesTheClientsRegion() {
        RemoteMemory region = new RemoteMemory(0x7f00_1234_5000L, 99, 1 << 21);
        BenchProtocol.Hello h = new BenchProtocol.Hello(BenchOptions.Op.WRITE, List.of(64, 1 << 20), List.of(5, 5),
                false, true, region, 1);
        int n = BenchProtocol.writeHello(buf, h);
        assertEquals(h, BenchProtocol.readHello(buf, n));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> BenchProtocol.readHello(buf, n - RemoteMemory.ENCODED_BYTES));
        assertEquals("WRITE latency HELLO without the client's region", e.getMessage());
    }

    @Test
    void aLatencyHelloCarriesTheReceiveDepth() {
        RemoteMemory region = new RemoteMemory(0x7f00_1234_5000L, 99, 1 << 21);
        for (BenchOptions.Op op : new BenchOptions.Op[] {BenchOptions.Op.SEND, BenchOptions.Op.WRITE}) {
            BenchProtocol.Hello h = new BenchProtocol.Hello(op, List.of(8, 4096), List.of(10, 10), false, true,
                    op == BenchOptions.Op.WRITE ? region : null, BenchOptions.MAX_RX_DEPTH);
            int n = BenchProtocol.writeHello(buf, h);
            assertEquals(h, BenchProtocol.readHello(buf, n));
            int depthAt = 16 + 2 * 8;
            for (int bad : new int[] {0, BenchOptions.MAX_RX_DEPTH + 1, -1}) {
                buf.putInt(depthAt, bad);
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, n));
                assertEquals("latency HELLO asks for a receive depth of " + bad + ", not 1.." + BenchOptions.MAX_RX_DEPTH,
                        e.getMessage());
            }
        }
        BenchProtocol.Hello send = new BenchProtocol.Hello(BenchOptions.Op.SEND, List.of(8), List.of(10), false, true);
        int n = BenchProtocol.writeHello(buf, send);
        assertEquals(1, BenchProtocol.readHello(buf, n).rxDepth());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, n - 4));
        assertEquals("latency HELLO without its receive depth", e.getMessage());
    }

    @Test
    void aLatencyHelloIsNotForReads() {
        int n = BenchProtocol.writeHello(buf, new BenchProtocol.Hello(BenchOptions.Op.READ, List.of(64), List.of(5),
                false, true));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, n));
        assertEquals("latency HELLO for READ: only SEND and WRITE", e.getMessage());
    }

    @Test
    void rejectsMalformedMessages() {
        int n = BenchProtocol.writeHello(buf, new BenchProtocol.Hello(BenchOptions.Op.WRITE, List.of(64), List.of(5), false, false));
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, n - 1));
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readReady(buf, n));
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, 4));
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, 100_000));
        buf.putInt(8, 99); // operation out of range
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, n));
        BenchProtocol.writeHello(buf, new BenchProtocol.Hello(BenchOptions.Op.WRITE, List.of(64), List.of(5), false, false));
        buf.putInt(16, 0); // size 0
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, n));
        buf.putInt(0, 0xdeadbeef);
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readHello(buf, n));
        BenchProtocol.writeReady(buf, new RemoteMemory(1, 2, 3));
        buf.putInt(20, -5); // negative length
        assertThrows(IllegalStateException.class, () -> BenchProtocol.readReady(buf, 24));
    }
}
