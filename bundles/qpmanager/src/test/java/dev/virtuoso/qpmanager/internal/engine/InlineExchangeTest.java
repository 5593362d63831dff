package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.reassembler.ReassemblyCounters;

/**
 * A request-response exchange of small MP_SENDs, each side posting its next MP_RECV right before
 * it sends: the advertisement of that receive and the message travel as one SEND on a path (the
 * message rides in the control message), so an exchange costs the wire what a raw QP's SEND/RECV
 * ping-pong costs, one message each way. Every byte is checked.
 */
class InlineExchangeTest {
    private static final int ROUNDS = 300;
    private static final int LOSSY_ROUNDS = 150;
    private static final int[] SIZES = {8, 4000, 0, 1, 700};

    private static ReassemblyCounters counters(MultipathConnection c) {
        return ((MpConnection) c).engine().reassembly().counters();
    }

    /** Polls {@code c} (running the engine's duty cycle) until a completion of {@code op} arrives. */
    private static MpCompletion spinFor(MultipathConnection c, MpOpcode op) {
        MpCompletion[] one = {new MpCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            if (c.pollCompletions(one) == 1 && one[0].opcode() == op) {
                return one[0];
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no " + op + " within 30 s: " + ((MpConnection) c).describe());
            }
        }
    }

    private static void exchange(Pair p, MultipathConnection from, MultipathConnection to, int round) throws Exception {
        int len = SIZES[round % SIZES.length];
        boolean toServer = from == p.client;
        int half = p.clientBuf.capacity() / 2;
        p.fill(toServer ? p.clientBuf : p.serverBuf, 0, len);
        // the receiver posted its receive before; the sender posts its own next one, then sends
        from.postRecv(round, toServer ? p.clientMr : p.serverMr, half, 4096);
        from.postSend(10_000 + round, toServer ? p.clientMr : p.serverMr, 0, len);
        MpCompletion r = spinFor(to, MpOpcode.RECV);
        assertEquals(round - 1, r.wrId(), "receives complete in order");
        Pair.assertOk(r, MpOpcode.RECV, len);
        Pair.assertSame(toServer ? p.clientBuf : p.serverBuf, 0, toServer ? p.serverBuf : p.clientBuf, half, len);
        MpCompletion s = spinFor(from, MpOpcode.SEND);
        assertEquals(10_000 + round, s.wrId());
        Pair.assertOk(s, MpOpcode.SEND, len);
    }

    @Test
    void eachSmallMessageRidesWithTheAdvertisementOfTheReceivePostedBeforeIt() throws Exception {
        EngineGroup engines = new EngineGroup(1, TimeUnit.MILLISECONDS.toNanos(250), true);
        try (Fabric f = new Fabric(Fabric.NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 64 * 1024);
            p.server.postRecv(-1, p.serverMr, p.serverBuf.capacity() / 2, 4096);
            MpCompletion[] none = new MpCompletion[0];
            for (int i = 0; i < 100; i++) { // the server's advertisement reaches the client
                p.client.pollCompletions(none);
                p.server.pollCompletions(none);
            }
            ReassemblyCounters client = counters(p.client);
            ReassemblyCounters server = counters(p.server);
            long clientControl = client.controlSent();
            long serverControl = server.controlSent();
            for (int k = 0; k < 2 * ROUNDS; k++) {
                exchange(p, k % 2 == 0 ? p.client : p.server, k % 2 == 0 ? p.server : p.client, k);
            }
            String both = "client " + client + ", server " + server;
            assertTrue(client.sentInline() >= ROUNDS * 9 / 10, both);
            assertTrue(server.sentInline() >= ROUNDS * 9 / 10, both);
            assertEquals(client.sentInline(), server.smallInline(), both);
            assertEquals(server.sentInline(), client.smallInline(), both);
            // hardly a control message of its own: advertisements and credits rode with the data
            assertTrue(client.controlSent() - clientControl - client.sentInline() <= ROUNDS / 10, both);
            assertTrue(server.controlSent() - serverControl - server.sentInline() <= ROUNDS / 10, both);
            assertEquals(0, client.violations() + server.violations(), both);
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    /**
     * Request-response with receives posted ahead, as perftest's ib_send_lat keeps them: the peer
     * holds enough advertised receives, so the advertisement of each repost waits and a 4 KiB
     * message (which cannot share a 4096-byte packet with records) goes alone, written straight
     * into its buffer; advertisements and credits follow in a control message now and then. Before
     * (every repost advertised at once) each message rode, two packets, in a control message.
     */
    @Test
    void withReceivesPostedAheadA4KiBMessageGoesAloneAndAdvertisementsWait() throws Exception {
        int depth = 8;
        int len = 4096;
        EngineGroup engines = new EngineGroup(1, TimeUnit.MILLISECONDS.toNanos(250), true);
        try (Fabric f = new Fabric(Fabric.NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 64 * 1024);
            int half = p.clientBuf.capacity() / 2;
            long[] posted = new long[2];
            for (int i = 0; i < depth; i++) {
                p.client.postRecv(posted[0]++, p.clientMr, half, len);
                p.server.postRecv(posted[1]++, p.serverMr, half, len);
            }
            ReassemblyCounters client = counters(p.client);
            ReassemblyCounters server = counters(p.server);
            long[] received = new long[2];
            for (int k = 0; k < 2 * ROUNDS; k++) {
                int to = k % 2 == 0 ? 1 : 0;
                MultipathConnection sender = to == 1 ? p.client : p.server;
                MultipathConnection receiver = to == 1 ? p.server : p.client;
                p.fill(to == 1 ? p.clientBuf : p.serverBuf, 0, len);
                sender.postSend(10_000 + k, to == 1 ? p.clientMr : p.serverMr, 0, len);
                MpCompletion r = spinFor(receiver, MpOpcode.RECV);
                assertEquals(received[to]++, r.wrId(), "receives complete in order");
                Pair.assertOk(r, MpOpcode.RECV, len);
                Pair.assertSame(to == 1 ? p.clientBuf : p.serverBuf, 0, to == 1 ? p.serverBuf : p.clientBuf, half, len);
                receiver.postRecv(posted[to]++, to == 1 ? p.serverMr : p.clientMr, half, len); // depth kept
                Pair.assertOk(spinFor(sender, MpOpcode.SEND), MpOpcode.SEND, len);
            }
            String both = "client " + client + ", server " + server;
            // most go alone, zero copy (before: none); the others rode with records that were due
            assertTrue(server.smallZeroCopy() >= ROUNDS / 2, both);
            assertTrue(client.smallZeroCopy() >= ROUNDS / 2, both);
            assertEquals(ROUNDS, server.smallReceived(), both);
            assertEquals(ROUNDS, client.smallReceived(), both);
            // a control message per few messages (61-62 of 300 seen; with every repost advertised at
            // once, 301: one per message)
            assertTrue(client.controlSent() <= ROUNDS / 3, both);
            assertTrue(server.controlSent() <= ROUNDS / 3, both);
            assertEquals(0, client.violations() + server.violations(), both);
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    /**
     * @param engineInvokeOnPoll the connections' engine run by the polling application threads
     *     (else by its agents)
     * @param softInvokeOnPoll the soft RNICs' duty cycles run by whoever polls their CQs (the
     *     application threads through the engine, or the agents)
     */
    @ParameterizedTest(name = "engine run by pollers {0}, soft RNICs run by pollers {1}")
    @CsvSource({"true, false", "true, true", "false, true"})
    void onLossyPathsAndAPathGoingDownEveryMessageArrivesOnceInOrderWithoutWaitingForARepair(
            boolean engineInvokeOnPoll, boolean softInvokeOnPoll) throws Exception {
        EngineGroup engines = new EngineGroup(1, TimeUnit.MILLISECONDS.toNanos(250), engineInvokeOnPoll);
        try (Fabric f = Fabric.of(Fabric.NO_HEARTBEAT, engines, softInvokeOnPoll,
                "rate=400m loss=0.01", "rate=400m delay=1ms loss=0.01")) {
            // a short ACK timeout (about 1 ms): every loss stalls the exchange for one
            var o = Fabric.options().ackTimeout(8).retryCount(7);
            // receives not remotely writable: every message goes by SEND (in a control message or
            // into a slot), whose second copy the receiver drops. A message written straight into a
            // writable receive (when its advertisement went ahead of it, as the agents may take a
            // postRecv alone) must wait for the dead path's fence before its re-send, by design
            // (SmallZeroCopyTest): that wait is not what this test is about
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(8).retryCount(7)), 64 * 1024,
                    EnumSet.of(Access.LOCAL_WRITE));
            p.server.postRecv(-1, p.serverMr, p.serverBuf.capacity() / 2, 4096);
            for (int k = 0; k < 2 * LOSSY_ROUNDS; k++) {
                if (k == LOSSY_ROUNDS) {
                    f.links.get(1).down(); // whatever it carried then fails and is sent again on path 0
                }
                exchange(p, k % 2 == 0 ? p.client : p.server, k % 2 == 0 ? p.server : p.client, k);
            }
            ReassemblyCounters client = counters(p.client);
            ReassemblyCounters server = counters(p.server);
            String both = "client " + client + ", server " + server + ", paths " + p.client.pathStats();
            assertTrue(client.sentInline() > 0 && server.sentInline() > 0, both);
            assertEquals(client.sentInline(), server.smallInline(), "each inline message taken once: " + both);
            assertEquals(server.sentInline(), client.smallInline(), "each inline message taken once: " + both);
            assertEquals(0, client.violations() + server.violations(), both);
            long retransmitted = p.client.pathStats().stream().mapToLong(s -> s.retransmissions()).sum()
                    + p.server.pathStats().stream().mapToLong(s -> s.retransmissions()).sum();
            assertTrue(retransmitted > 0, "the fabric lost packets: " + both);
            // messages failed on the dead path and were sent again; being SENDs whose second copy the
            // receiver drops, none waited for that path's repair (up to 1 s away) to complete
            var cd = ((MpConnection) p.client).engine().decomposition().counters();
            var sd = ((MpConnection) p.server).engine().decomposition().counters();
            assertTrue(cd.chunksFailed() + sd.chunksFailed() > 0, "attempts failed on the dead path: " + cd + " " + sd);
            assertEquals(0, cd.fenceWaits() + sd.fenceWaits(), cd + " " + sd);
        } finally {
            assertTrue(engines.close(10_000));
        }
    }
}
