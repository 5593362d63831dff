package dev.virtuoso.verbs.soft.fabric;

import static dev.virtuoso.verbs.soft.fabric.FabricTestSupport.addr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Routing, binding, wakeups, steady-state allocation and shutdown of the fabric. */
class FabricNetworkTest {

    @Test
    void addressLinkWinsOverHostLinkAndUnlinkedPairsHaveNoRoute() throws Exception {
        try (FabricTestSupport f = new FabricTestSupport(1, "delay=0")) {
            FabricPort a2 = f.wireA.open(addr("10.0.1.1"), FabricTestSupport.PORT);
            FabricPort b2 = f.wireB.open(addr("10.0.1.2"), FabricTestSupport.PORT);
            assertFalse(f.send(a2, b2, 1, 100), "no link between 10.0.1.1 and 10.0.1.2 yet");
            assertEquals(1, f.net.droppedNoRoute());
            assertEquals(1, a2.counter(PortCounter.DROPPED_NO_ROUTE));

            FabricLink hosts = f.net.link("A", "B", LinkSpec.UNLIMITED);
            assertTrue(f.send(a2, b2, 2, 100));
            assertTrue(f.send(f.a, f.b, 3, 100));
            assertEquals(List.of(2, 3), FabricTestSupport.receive(f.wireB, b2, 1, 500).size() == 1
                    ? List.of(2, FabricTestSupport.receive(f.wireB, f.b, 1, 500).get(0)) : List.of());
            assertEquals(1, hosts.counter(LinkCounter.DELIVERED_PACKETS), "host link carries 10.0.1.x");
            assertEquals(1, f.link().counter(LinkCounter.DELIVERED_PACKETS), "address link carries 10.0.0.x");
        }
    }

    @Test
    void defaultLinkIsMadePerAddressPairAndSameHostUsesLoopback() throws Exception {
        try (FabricTestSupport f = new FabricTestSupport(1, null)) {
            f.net.defaultLink(LinkSpec.parse("rate=1g"));
            FabricPort a2 = f.wireA.open(addr("10.0.1.1"), FabricTestSupport.PORT);
            assertTrue(f.send(f.a, f.b, 1, 100));
            assertEquals(List.of(1), FabricTestSupport.receive(f.wireB, f.b, 1, 500));
            assertTrue(f.net.findLink("10.0.0.1", "10.0.0.2").isPresent());
            assertEquals(1_000_000_000L, f.link().spec().rateBitsPerSecond());

            assertTrue(f.send(f.a, a2, 2, 100), "same host");
            assertEquals(List.of(2), FabricTestSupport.receive(f.wireA, a2, 1, 500));
            assertEquals(1, f.net.loopback("A").counter(LinkCounter.DELIVERED_PACKETS));
            assertEquals(1, f.net.links().size());
        }
    }

    @Test
    void unboundDestinationIsDroppedOnTheLinkAndDatagramsCarryAddresses() throws Exception {
        try (FabricTestSupport f = new FabricTestSupport(1, "delay=0")) {
            ByteBuffer d = ByteBuffer.allocateDirect(16);
            assertTrue(f.a.send(d, new InetSocketAddress(addr("10.0.0.2"), 9999)));
            assertEquals(1, f.link().counter(LinkCounter.DROPPED_NO_ENDPOINT));
            assertEquals(16, d.position(), "consumed");

            d.clear();
            f.a.send(d, f.b.localAddress());
            InetSocketAddress[] seen = new InetSocketAddress[2];
            FabricTestSupport.receive(f.wireB, f.b, 0, 0);
            assertEquals(1, f.b.receive((dg, src, dst) -> {
                seen[0] = src;
                seen[1] = dst;
                assertEquals(16, dg.remaining());
            }, 8));
            assertEquals(f.a.localAddress(), seen[0]);
            assertEquals(f.b.localAddress(), seen[1]);
            assertEquals(1, f.b.counter(PortCounter.RECEIVED_DATAGRAMS));
            assertEquals(32, f.a.counter(PortCounter.SENT_BYTES), "both sends left the port");
        }
    }

    @Test
    void bindChecksOwnershipAndConflictsAndPicksEphemeralPorts() throws Exception {
        try (FabricTestSupport f = new FabricTestSupport(1, null)) {
            assertThrows(BindException.class, () -> f.wireA.open(addr("10.0.0.2"), 1));
            assertThrows(BindException.class, () -> f.wireA.open(addr("10.0.0.1"), FabricTestSupport.PORT));
            FabricPort p1 = f.wireA.open(addr("10.0.0.1"), 0);
            FabricPort p2 = f.wireA.open(addr("10.0.0.1"), 0);
            assertNotEquals(p1.localAddress().getPort(), p2.localAddress().getPort());
            assertTrue(p1.localAddress().getPort() >= 49152);
            p1.close();
            FabricPort again = f.wireA.open(addr("10.0.0.1"), p1.localAddress().getPort());
            assertEquals(p1.localAddress(), again.localAddress());
            assertThrows(BindException.class, () -> f.wireA.open(addr("10.0.0.1"), 70000 - 70000 + 4791));
        }
    }

    @Test
    void tooBigDatagramIsALocalDrop() throws Exception {
        try (FabricTestSupport f = new FabricTestSupport(1, "delay=0")) {
            ByteBuffer big = ByteBuffer.allocateDirect(f.net.maxDatagramBytes() + 1);
            assertFalse(f.a.send(big, f.b.localAddress()));
            assertEquals(1, f.a.counter(PortCounter.DROPPED_TOO_BIG));
        }
    }

    @Test
    void awaitReturnsOnWakeupOnDataAndOnTimeout() throws Exception {
        try (FabricTestSupport f = new FabricTestSupport(1, "delay=50ms")) {
            f.wireB.wakeup();
            long t0 = System.nanoTime();
            f.wireB.await(TimeUnit.SECONDS.toNanos(5));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1), "pending wakeup returns at once");

            t0 = System.nanoTime();
            f.wireB.await(TimeUnit.MILLISECONDS.toNanos(20));
            long waited = System.nanoTime() - t0;
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(15), "timeout honoured: " + waited);

            CountDownLatch parked = new CountDownLatch(1);
            Thread waker = new Thread(() -> {
                try {
                    parked.await(1, TimeUnit.SECONDS);
                    Thread.sleep(30);
                } catch (InterruptedException e) {
                    return;
                }
                f.wireB.wakeup();
            }, "virtuoso-test-waker");
            waker.start();
            parked.countDown();
            t0 = System.nanoTime();
            f.wireB.await(TimeUnit.SECONDS.toNanos(5));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "woken by another thread");
            waker.join(1000);

            f.send(f.a, f.b, 1, 100);
            t0 = System.nanoTime();
            f.wireB.await(TimeUnit.SECONDS.toNanos(5));
            long arrival = System.nanoTime() - t0;
            assertTrue(arrival < TimeUnit.SECONDS.toNanos(2), "woken by a delivery: " + arrival);
            f.wireB.await(TimeUnit.SECONDS.toNanos(5));
            assertEquals(1, f.b.receive((d, s, dst) -> { }, 8), "data pending: await returns at once");
        }
    }

    @Test
    void steadyStateSendAndReceiveAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled(),
                "no per-thread allocation counter");
        try (FabricTestSupport f = new FabricTestSupport(1, "delay=0")) {
            ByteBuffer d = ByteBuffer.allocateDirect(4136);
            long[] sum = new long[1];
            dev.virtuoso.verbs.soft.wire.DatagramHandler handler = (dg, s, dst) -> sum[0] += dg.remaining();
            for (int round = 0; round < 2; round++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    d.clear();
                    f.a.send(d, f.b.localAddress());
                    f.b.receive(handler, 16);
                }
                long allocated = mx.getCurrentThreadAllocatedBytes() - before;
                if (round == 1) {
                    assertTrue(allocated < 4096, "allocated " + allocated + " bytes for 20000 datagrams");
                }
            }
            assertEquals(40_000L * 4136, sum[0]);
            assertTrue(f.net.pooledPackets() <= 128, "pool stays small: " + f.net.pooledPackets());
        }
    }

    @Test
    void closeStopsTheSchedulerAndClosesPorts() throws Exception {
        FabricTestSupport f = new FabricTestSupport(1, "delay=10ms");
        f.send(f.a, f.b, 1, 100);
        Thread scheduler = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("virtuoso-fabric-test")).findFirst().orElseThrow();
        f.close();
        scheduler.join(2000);
        assertFalse(scheduler.isAlive());
        assertThrows(ClosedChannelException.class, () -> f.send(f.a, f.b, 2, 100));
        assertThrows(java.io.IOException.class, () -> f.wireB.await(1000));
        assertThrows(IllegalStateException.class, () -> f.net.wire("A"));
    }
}
