package dev.virtuoso.verbs.soft.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.verbs.soft.wire.DatagramHandler;

/** The UDP wire over loopback aliases 127.0.0.1 and 127.0.0.2 (both local on Linux). */
class UdpWireTest {
    private UdpWire wireA;
    private UdpWire wireB;
    private UdpWirePort a;
    private UdpWirePort b;
    private final ByteBuffer out = ByteBuffer.allocateDirect(9000);

    @BeforeEach
    void open() throws IOException {
        wireA = new UdpWire();
        wireB = new UdpWire(new UdpWireOptions(1 << 20, 1 << 20));
        a = wireA.open(InetAddress.getByName("127.0.0.1"), 0);
        b = wireB.open(InetAddress.getByName("127.0.0.2"), 0);
    }

    @AfterEach
    void close() {
        wireA.close();
        wireB.close();
    }

    private void send(UdpWirePort from, UdpWirePort to, int index, int size) throws IOException {
        out.clear();
        out.putInt(index);
        out.position(size);
        out.flip();
        assertTrue(from.send(out, to.localAddress()));
        assertEquals(size, out.position(), "datagram consumed");
    }

    private static List<Integer> receive(UdpWire wire, UdpWirePort port, int count) throws IOException {
        List<Integer> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (got.size() < count && System.nanoTime() - deadline < 0) {
            if (port.receive((d, s, dst) -> got.add(d.getInt(d.position())), 64) == 0) {
                wire.await(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        return got;
    }

    @Test
    void datagramsCarryTheVnicAddressesAndArriveWhole() throws IOException {
        send(a, b, 7, 4136);
        InetSocketAddress[] seen = new InetSocketAddress[2];
        int[] length = new int[1];
        wireB.await(TimeUnit.SECONDS.toNanos(2));
        assertEquals(1, b.receive((d, src, dst) -> {
            seen[0] = src;
            seen[1] = dst;
            length[0] = d.remaining();
        }, 8));
        assertEquals(a.localAddress(), seen[0], "source is the sending vNIC");
        assertEquals(b.localAddress(), seen[1]);
        assertEquals(4136, length[0]);
        assertEquals(1, a.counter(UdpCounter.SENT_DATAGRAMS));
        assertEquals(4136, b.counter(UdpCounter.RECEIVED_BYTES));
        assertTrue(b.receiveBufferBytes() >= 4096);
    }

    @Test
    void receiveHonoursTheBatchLimit() throws IOException {
        for (int i = 0; i < 10; i++) {
            send(a, b, i, 100);
        }
        List<Integer> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (got.size() < 10 && System.nanoTime() < deadline) {
            int n = b.receive((d, s, dst) -> got.add(d.getInt(d.position())), 3);
            assertTrue(n <= 3);
            if (n == 0) {
                wireB.await(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), got);
    }

    @Test
    void aDrainedPortIsNotReadAgainUntilTheWireSeesItReadable() throws Exception {
        List<Integer> got = new ArrayList<>();
        DatagramHandler handler = (d, s, dst) -> got.add(d.getInt(d.position()));
        assertEquals(0, b.receive(handler, 8), "nothing sent yet: the port is drained");
        send(a, b, 1, 100);
        Thread.sleep(50); // loopback: the datagram is in b's socket by now
        assertEquals(0, b.receive(handler, 8), "no system call on a drained port before a poll");
        wireB.pollReadiness();
        assertEquals(1, b.receive(handler, 8), "read once the wire saw it readable");
        assertEquals(List.of(1), got);
        // await marks readable ports as well
        send(a, b, 2, 100);
        assertEquals(0, b.receive(handler, 8));
        assertEquals(List.of(2), receive(wireB, b, 1));
        // a partly read port stays readable without a poll
        for (int i = 3; i < 8; i++) {
            send(a, b, i, 100);
        }
        Thread.sleep(50);
        wireB.pollReadiness();
        got.clear();
        assertEquals(2, b.receive(handler, 2));
        assertEquals(3, b.receive(handler, 8));
        assertEquals(List.of(3, 4, 5, 6, 7), got);
    }

    @Test
    void awaitReturnsOnDataOnWakeupAndAfterTheTimeout() throws Exception {
        long t0 = System.nanoTime();
        wireB.await(TimeUnit.MILLISECONDS.toNanos(30));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(25), "timeout honoured");

        wireB.wakeup();
        t0 = System.nanoTime();
        wireB.await(TimeUnit.SECONDS.toNanos(5));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1), "pending wakeup");

        Thread waker = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            wireB.wakeup();
        }, "virtuoso-test-waker");
        waker.start();
        t0 = System.nanoTime();
        wireB.await(TimeUnit.SECONDS.toNanos(5));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "woken by another thread");
        waker.join(1000);

        send(a, b, 1, 64);
        t0 = System.nanoTime();
        wireB.await(TimeUnit.SECONDS.toNanos(5));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "woken by data");
        wireB.await(TimeUnit.SECONDS.toNanos(5));
        assertEquals(List.of(1), receive(wireB, b, 1), "unread data keeps await from parking");
    }

    @Test
    void severalInstancesShareAnAddressOnDifferentPorts() throws IOException {
        UdpWirePort b2 = wireB.open(InetAddress.getByName("127.0.0.2"), 0);
        assertThrows(BindException.class, () -> wireA.open(InetAddress.getByName("127.0.0.2"),
                b2.localAddress().getPort()));
        send(a, b2, 5, 64);
        assertEquals(List.of(5), receive(wireB, b2, 1));
        assertEquals(0, b.counter(UdpCounter.RECEIVED_DATAGRAMS));
    }

    @Test
    void refusedDatagramIsCountedNotThrown() throws IOException {
        out.clear().limit(10);
        assertFalse(a.send(out, new InetSocketAddress(InetAddress.getByName("::1"), 4791)));
        assertEquals(1, a.counter(UdpCounter.DROPPED_SEND_ERROR));
        assertFalse(a.lastSendError().isEmpty());
        ByteBuffer tooBig = ByteBuffer.allocateDirect(65_536);
        assertFalse(a.send(tooBig, b.localAddress()), "larger than any UDP payload");
        assertEquals(2, a.counter(UdpCounter.DROPPED_SEND_ERROR));
    }

    @Test
    void steadyStateSendReceiveAndAwaitAllocateNothing() throws IOException {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled(),
                "no per-thread allocation counter");
        long[] bytes = new long[1];
        DatagramHandler handler = (d, s, dst) -> bytes[0] += d.remaining();
        for (int round = 0; round < 2; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 5000; i++) {
                out.clear().limit(1024);
                a.send(out, b.localAddress());
                while (b.receive(handler, 16) == 0) {
                    wireB.await(TimeUnit.MILLISECONDS.toNanos(10));
                }
                wireA.wakeup();
                wireA.await(0);
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            if (round == 1) {
                assertTrue(allocated < 8192, "allocated " + allocated + " bytes for 5000 datagrams");
            }
        }
        assertEquals(10_000L * 1024, bytes[0]);
    }

    @Test
    void dontFragmentIsSetWhereTheJvmCan() {
        assertEquals(Runtime.version().feature() >= 19, UdpWire.canSetDontFragment());
        assertEquals(UdpWire.canSetDontFragment(), a.dontFragment());
    }

    @Test
    void closedPortsAndWiresFail() throws IOException {
        a.close();
        assertFalse(a.isOpen());
        out.clear().limit(10);
        assertThrows(ClosedChannelException.class, () -> a.send(out, b.localAddress()));
        wireB.close();
        assertThrows(IOException.class, () -> wireB.await(1000));
        assertThrows(ClosedChannelException.class, () -> b.receive((d, s, dst) -> { }, 1));
        assertThrows(IOException.class, () -> wireB.open(InetAddress.getByName("127.0.0.2"), 0));
    }
}
