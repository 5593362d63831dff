package dev.virtuoso.verbs.soft.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Packets that wait (a link's rate or delay) are delivered by the threads receiving on the
 * network's ports as soon as they are due, not only by the scheduler thread: here the network has
 * none, so nothing else could deliver them.
 */
class ReceiverDeliveryTest {
    @Test
    void aReceiverDeliversDuePacketsInOrderAndNotBeforeTheyAreDue() throws Exception {
        try (FabricNetwork net = new FabricNetwork("receivers", 1, FabricNetwork.DEFAULT_MAX_DATAGRAM_BYTES,
                FabricNetwork.DEFAULT_PORT_QUEUE_PACKETS, false)) {
            net.addHost("A", "10.0.0.1");
            net.addHost("B", "10.0.0.2");
            // 8 Mbit/s and 5 ms: 1000 B take 1 ms each, the 10th lands 15 ms after the send
            net.link("10.0.0.1", "10.0.0.2", LinkSpec.parse("rate=8m delay=5ms"));
            FabricPort a = net.wire("A").open(FabricTestSupport.addr("10.0.0.1"), FabricTestSupport.PORT);
            FabricPort b = net.wire("B").open(FabricTestSupport.addr("10.0.0.2"), FabricTestSupport.PORT);
            ByteBuffer out = ByteBuffer.allocateDirect(1000);
            long start = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                out.clear();
                out.putInt(0, i);
                assertTrue(a.send(out, new InetSocketAddress(b.localAddress().getAddress(), FabricTestSupport.PORT)));
            }
            List<Integer> got = new ArrayList<>();
            List<Long> at = new ArrayList<>();
            long deadline = start + 2_000_000_000L;
            while (got.size() < 10 && System.nanoTime() - deadline < 0) {
                b.receive((d, s, dst) -> {
                    got.add(d.getInt(d.position()));
                    at.add(System.nanoTime() - start);
                }, 64);
            }
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), got, "every packet, in order, within 2 s");
            for (int i = 0; i < 10; i++) {
                long due = 5_000_000L + (i + 1) * 1_000_000L;
                assertTrue(at.get(i) >= due, "packet " + i + " at " + at.get(i) / 1000 + " us, due at " + due / 1000);
            }
        }
    }

    @Test
    void receiversAndTheSchedulerThreadTogetherDeliverEveryPacketOnceAndInOrder() throws Exception {
        try (FabricNetwork net = new FabricNetwork("race", 1)) {
            net.addHost("A", "10.0.0.1", "10.0.1.1");
            net.addHost("B", "10.0.0.2", "10.0.1.2");
            // two rate-limited links; two receiving threads, and the scheduler thread, take turns
            net.link("10.0.0.1", "10.0.0.2", LinkSpec.parse("rate=200m queue=unlimited"));
            net.link("10.0.1.1", "10.0.1.2", LinkSpec.parse("rate=300m delay=20us queue=unlimited"));
            FabricWire wireA = net.wire("A");
            FabricWire wireB = net.wire("B");
            FabricPort[] from = {wireA.open(FabricTestSupport.addr("10.0.0.1"), FabricTestSupport.PORT),
                wireA.open(FabricTestSupport.addr("10.0.1.1"), FabricTestSupport.PORT)};
            FabricPort[] to = {wireB.open(FabricTestSupport.addr("10.0.0.2"), FabricTestSupport.PORT),
                wireB.open(FabricTestSupport.addr("10.0.1.2"), FabricTestSupport.PORT)};
            int packets = 3000;
            List<List<Integer>> got = List.of(new ArrayList<>(), new ArrayList<>());
            Thread[] receivers = new Thread[2];
            for (int r = 0; r < 2; r++) {
                int k = r;
                receivers[r] = new Thread(() -> {
                    long deadline = System.nanoTime() + 20_000_000_000L;
                    try {
                        while (got.get(k).size() < packets && System.nanoTime() - deadline < 0) {
                            if (to[k].receive((d, s, dst) -> got.get(k).add(d.getInt(d.position())), 64) == 0
                                    && (got.get(k).size() & 1) == 0) {
                                Thread.yield(); // now and then leave the deliveries to the other threads
                            }
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }, "test-receiver-" + r);
                receivers[r].start();
            }
            ByteBuffer out = ByteBuffer.allocateDirect(1000);
            for (int i = 0; i < packets; i++) {
                for (int k = 0; k < 2; k++) {
                    out.clear();
                    out.putInt(0, i);
                    assertTrue(from[k].send(out, to[k].localAddress()));
                }
                if (i % 100 == 99) {
                    Thread.sleep(1); // bursts: some packets find the receivers spinning, some parked
                }
            }
            for (Thread t : receivers) {
                t.join(30_000);
            }
            for (int k = 0; k < 2; k++) {
                List<Integer> g = got.get(k);
                assertEquals(packets, g.size(), "link " + k + ": every packet, once");
                for (int i = 0; i < packets; i++) {
                    assertEquals(i, g.get(i), "link " + k + ": in order");
                }
            }
        }
    }
}
