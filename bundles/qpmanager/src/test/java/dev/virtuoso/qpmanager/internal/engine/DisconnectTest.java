package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.VirtuosoException;

/** Disconnect drains or flushes, tells the peer and releases every thread and resource of the connection. */
class DisconnectTest {

    private static Set<String> threadsOf(MultipathConnection c) {
        Set<String> names = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().endsWith("-" + c.id())) {
                names.add(t.getName());
            }
        }
        return names;
    }

    private static void awaitState(MultipathConnection c, ConnectionState s) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (c.state() != s && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(s, c.state());
    }

    @Test
    void disconnectUnderLoadFlushesTheRestAndReleasesEverything() throws Exception {
        try (Fabric f = new Fabric("rate=200m", "rate=200m")) {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 8 << 20);
            // the engine and its CQ events run on the engine group's shared threads, the control
            // channel on the connector's shared control I/O threads: none is the connection's own
            assertEquals(Set.of(), threadsOf(p.client));
            assertTrue(((MpConnection) p.client).engine().thread().getName().startsWith("virtuoso-engine-"));
            for (int i = 0; i < 8; i++) {
                p.server.postRecv(100 + i, p.serverMr, 0, 8 << 20);
            }
            int posted = 0;
            for (int i = 0; i < 20; i++) {
                p.client.postWrite(i, p.clientMr, 0, 8 << 20, p.serverMr.remote(), 0);
                posted++;
            }
            p.client.postSend(50, p.clientMr, 0, 4 << 20);
            posted++;
            Thread.sleep(20);
            long t0 = System.nanoTime();
            p.client.disconnect(50, TimeUnit.MILLISECONDS);
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "disconnect took too long");
            assertEquals(ConnectionState.CLOSED, p.client.state());
            Set<Long> seen = new HashSet<>();
            int flushed = 0;
            MpCompletion c = new MpCompletion();
            while (p.client.awaitCompletion(c, 10, TimeUnit.MILLISECONDS)) {
                assertTrue(seen.add(c.wrId()), "one completion per request: " + c);
                assertTrue(c.status() == MpStatus.SUCCESS || c.status() == MpStatus.FLUSHED, c.toString());
                flushed += c.status() == MpStatus.FLUSHED ? 1 : 0;
            }
            assertEquals(posted, seen.size());
            assertTrue(flushed > 0, "some writes were still under way");
            assertEquals(Set.of(), threadsOf(p.client), "threads released");
            VirtuosoException e = assertThrows(VirtuosoException.class,
                    () -> p.client.postWrite(1, p.clientMr, 0, 1, p.serverMr.remote(), 0));
            assertEquals(VirtuosoException.Reason.CLOSED, e.reason());

            awaitState(p.server, ConnectionState.CLOSED);
            int recvs = 0;
            while (p.server.awaitCompletion(c, 10, TimeUnit.MILLISECONDS)) {
                assertEquals(MpOpcode.RECV, c.opcode());
                recvs++;
            }
            assertEquals(8, recvs, "the peer's receives complete (placed or flushed)");
            assertEquals(Set.of(), threadsOf(p.server));
            assertTrue(f.connector.connections().isEmpty());
            assertArrayEquals(new int[f.connector.engines().size()], f.connector.engines().loads(),
                    "no agent serves a connection any more");
        }
    }

    /**
     * The sender disconnects the moment its SENDs completed: the receiver must still deliver both
     * (the small one's CQE is in its CQ, the large one's report precedes the DISCONNECT in the
     * control stream, which may end before the receiver's engine read it) and end CLOSED.
     */
    @Test
    void messagesSentJustBeforeTheSenderDisconnectsAreDelivered() throws Exception {
        try (Fabric f = new Fabric("rate=10g", "rate=10g")) {
            for (int round = 0; round < 25; round++) {
                Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 1 << 20);
                p.server.postRecv(1, p.serverMr, 0, 64);
                p.server.postRecv(2, p.serverMr, 4096, 512 << 10);
                p.fill(p.clientBuf, 0, 64);
                p.fill(p.clientBuf, 4096, 512 << 10);
                p.client.postSend(1, p.clientMr, 0, 64);
                p.client.postSend(2, p.clientMr, 4096, 512 << 10);
                // two messages' completions at the sender, in either order (the small one's path may
                // be busy with the path monitor's first probes while the large one completes)
                MpCompletion first = Pair.await(p.client);
                MpCompletion second = Pair.await(p.client);
                if (first.wrId() == 2) {
                    MpCompletion t = first;
                    first = second;
                    second = t;
                }
                assertEquals(1, first.wrId(), first + " / " + second);
                Pair.assertOk(first, MpOpcode.SEND, 64);
                assertEquals(2, second.wrId(), first + " / " + second);
                Pair.assertOk(second, MpOpcode.SEND, 512 << 10);
                p.client.disconnect(5, TimeUnit.SECONDS);
                MpCompletion small = Pair.await(p.server);
                assertEquals(MpStatus.SUCCESS, small.status(), "round " + round + ": " + small);
                assertEquals(1, small.wrId());
                MpCompletion large = Pair.await(p.server);
                assertEquals(MpStatus.SUCCESS, large.status(), "round " + round + ": " + large);
                assertEquals(512 << 10, large.byteLength());
                Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, 64);
                Pair.assertSame(p.clientBuf, 4096, p.serverBuf, 4096, 512 << 10);
                awaitState(p.server, ConnectionState.CLOSED);
                p.server.close();
                f.listener().close();
            }
        }
    }

    @Test
    void disconnectWithTimeToDrainCompletesEverything() throws Exception {
        try (Fabric f = new Fabric("rate=1g", "rate=1g")) {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 8 << 20);
            for (int i = 0; i < 6; i++) {
                p.client.postWrite(i, p.clientMr, 0, 8 << 20, p.serverMr.remote(), 0);
            }
            p.client.disconnect(30, TimeUnit.SECONDS);
            MpCompletion c = new MpCompletion();
            for (int i = 0; i < 6; i++) {
                assertTrue(p.client.awaitCompletion(c, 1, TimeUnit.SECONDS));
                assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
            }
            assertFalse(p.client.awaitCompletion(c, 10, TimeUnit.MILLISECONDS));
            awaitState(p.server, ConnectionState.CLOSED);
            p.client.close();
            p.client.disconnect(1, TimeUnit.SECONDS);
        }
    }

    @Test
    void closingTheConnectorDisconnectsAll() throws Exception {
        Fabric f = new Fabric("rate=0");
        try {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 1 << 20);
            p.write(1 << 20);
            f.connector.close();
            assertEquals(ConnectionState.CLOSED, p.client.state());
            assertEquals(ConnectionState.CLOSED, p.server.state());
            assertEquals(List.of(), f.connector.connections());
            assertThrows(VirtuosoException.class, () -> f.listener().accept(1, TimeUnit.MILLISECONDS));
        } finally {
            f.close();
        }
    }
}
