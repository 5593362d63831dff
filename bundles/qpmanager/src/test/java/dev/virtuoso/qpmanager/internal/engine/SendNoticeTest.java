package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.reassembler.ReassemblyCounters;
import dev.virtuoso.verbs.soft.fabric.FabricLink;

/**
 * MP_SEND over the paths only: a large message's placement is announced by a notice on a path,
 * never by SEND_DONE on the control channel. Receive completions come in MP_SEND order and only
 * when every byte of their message is in the buffer, on skewed paths, lossy paths, with a path
 * failing during a large SEND, and with stale packets of a failed attempt still in the network.
 */
class SendNoticeTest {
    private static final int SMALL_SLOT_BYTES = 64 * 1024;

    private static ReassemblyCounters counters(Pair p, boolean client) {
        return ((MpConnection) (client ? p.client : p.server)).engine().reassembly().counters();
    }

    /**
     * MP_SENDs of the given lengths into receives the server posted first, over a receive buffer
     * holding other bytes; each receive completion is checked the moment it is taken: its
     * message's bytes must all be there already, and completions must come in send order.
     */
    private static void sendCheckingEachOnArrival(Pair p, int... lens) throws Exception {
        p.sendInOrder(p.serverMr, p.serverBuf, lens, 1000, 2000);
    }

    private static int large(int... lens) {
        int n = 0;
        for (int l : lens) {
            n += l >= SMALL_SLOT_BYTES ? 1 : 0;
        }
        return n;
    }

    @Test
    void reassemblyMessagesTravelOnThePathsOnly() throws Exception {
        try (Fabric f = new Fabric("rate=1g", "rate=1g")) {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 8 << 20);
            int[] lens = {300_000, 10, 1 << 20, 65_536, 5, 2_000_000, 70_000, 4000, 100_000, 1};
            for (int round = 0; round < 3; round++) {
                sendCheckingEachOnArrival(p, lens);
            }
            int large = 3 * large(lens);
            ReassemblyCounters sender = counters(p, true);
            ReassemblyCounters receiver = counters(p, false);
            assertEquals(large, sender.noticesSent(), sender.toString());
            assertEquals(0, sender.noticeFallbacks(), sender.toString());
            // the receiver's advertisements and credits reached the sender as control messages on
            // the paths, every one of them (protocol 2 has no reassembly frame on the TCP channel);
            // the last credit message may still be on its way when the last receive completed
            assertTrue(receiver.controlSent() > 0, receiver.toString());
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while ((receiver.controlSent() != sender.controlReceived() || sender.controlSent() != receiver.controlReceived())
                    && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(receiver.controlSent(), sender.controlReceived(), sender + " / " + receiver);
            assertEquals(sender.controlSent(), receiver.controlReceived(), sender + " / " + receiver);
            assertEquals(0, sender.controlResent() + receiver.controlResent());
            assertEquals(large, receiver.noticesReceived(), receiver.toString());
            assertEquals(large, receiver.largeReceived(), receiver.toString());
            assertEquals(0, receiver.placementReportsReceived(), "no SEND_DONE record (only a failed notice sends one): "
                    + receiver);
        }
    }

    @Test
    void skewedPathsKeepSendOrderAndCompleteOnlyWhenEveryByteIsPlaced() throws Exception {
        try (Fabric f = new Fabric("rate=50m delay=15ms", "rate=1g delay=100us")) {
            var o = Fabric.options().chunkSize(128 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options()), 8 << 20);
            sendCheckingEachOnArrival(p, 2_000_000, 100, 400_000, 70_000, 3, 1 << 20, 65_536, 9000, 800_000);
            assertEquals(2, p.client.pathStats().stream().filter(s -> s.chunksCompleted() > 0).count(),
                    "both paths carried data: " + p.client.pathStats());
            assertEquals(0, counters(p, false).placementReportsReceived());
        }
    }

    @Test
    void lossyPathsKeepSendOrderAndCompleteOnlyWhenEveryByteIsPlaced() throws Exception {
        try (Fabric f = new Fabric("rate=400m loss=0.01", "rate=400m delay=2ms loss=0.02")) {
            var o = Fabric.options().chunkSize(128 * 1024).ackTimeout(12).retryCount(7);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(12).retryCount(7)), 8 << 20);
            for (int round = 0; round < 2; round++) {
                sendCheckingEachOnArrival(p, 1 << 20, 200, 300_000, 65_536, 7, 2_000_000, 100_000, 30_000);
            }
            long retransmitted = p.client.pathStats().stream().mapToLong(s -> s.retransmissions()).sum();
            assertTrue(retransmitted > 0, "the fabric lost packets: " + p.client.pathStats());
            assertEquals(0, counters(p, false).placementReportsReceived());
        }
    }

    @Test
    void aPathFailingDuringALargeSendLosesNothing() throws Exception {
        try (Fabric f = new Fabric("rate=400m", "rate=400m", "rate=400m")) {
            var o = Fabric.options().ackTimeout(10).retryCount(3).chunkSize(256 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(10).retryCount(3)), 32 << 20);
            sendCheckingEachOnArrival(p, 1 << 20, 10);
            int len = 24 << 20;
            p.fill(p.serverBuf, 0, len);
            p.fill(p.clientBuf, 0, len);
            p.server.postRecv(77, p.serverMr, 0, len);
            p.client.postSend(78, p.clientMr, 0, len);
            f.cutWhileCarrying(p.client, 1);
            MpCompletion r = Pair.await(p.server);
            Pair.assertOk(r, MpOpcode.RECV, len);
            Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, len);
            Pair.assertOk(Pair.await(p.client), MpOpcode.SEND, len);
            assertTrue(p.client.pathStats().get(1).chunksFailed() > 0, "path 1 lost chunks: " + p.client.pathStats());
            sendCheckingEachOnArrival(p, 3 << 20, 5, 100_000);
            assertEquals(0, counters(p, false).placementReportsReceived());
        }
    }

    /**
     * As StaleWriteTest for MP_SEND: chunks on path 1 fail (its packets are delayed beyond the ACK
     * timeout) and are re-posted on path 0 while the first attempt is still in the network. The
     * notice is posted only once path 1 is fenced, so nothing lands after the receive completion.
     */
    @Test
    void noWriteOfAnAbandonedAttemptLandsAfterTheReceiveCompletion() throws Exception {
        int len = 256 * 1024;
        long delayNanos = 100_000_000L;
        try (Fabric f = new Fabric("rate=1g", "rate=1g")) {
            var o = Fabric.options().ackTimeout(12).retryCount(1).chunkSize(64 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(12).retryCount(1)), len);
            sendCheckingEachOnArrival(p, len);
            FabricLink slow = f.links.get(1);
            slow.configure(slow.spec().withDelayNanos(delayNanos));
            ByteBuffer marker = ByteBuffer.allocateDirect(len);
            for (int round = 0; round < 6; round++) {
                p.sendThenReuseTheBuffer(round, marker, len, 2 * delayNanos / 1_000_000);
            }
            assertTrue(p.client.pathStats().get(1).chunksFailed() > 0,
                    "chunks on the slow path failed and were re-posted: " + p.client.pathStats());
            String d = ((MpConnection) p.client).describe();
            assertTrue(d.contains("fenceWaits=") && !d.contains("fenceWaits=0]"), "completions were held: " + d);
        }
    }
}
