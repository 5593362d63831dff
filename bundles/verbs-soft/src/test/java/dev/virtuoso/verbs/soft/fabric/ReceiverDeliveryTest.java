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
}
