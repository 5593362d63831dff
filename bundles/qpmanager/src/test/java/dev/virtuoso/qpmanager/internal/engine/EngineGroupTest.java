package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;

/**
 * Stress of the engine group: many connections on few agents, concurrent connects and closes, a
 * connection closing while others transfer, quiet connections not run at all, and threads that do
 * not grow with the number of connections.
 */
class EngineGroupTest {
    /** Heartbeats out of the way: a quiet connection then gets no control bytes at all. */
    private static final CoreSettings NO_HEARTBEAT = Fabric.NO_HEARTBEAT;

    private static ConnectOptions.Builder small() {
        return Fabric.options().maxOutstanding(16).smallMessageSlots(4).splitThreshold(4096);
    }

    /** Opens {@code n} pairs through one listener. */
    private static List<Pair> open(Fabric f, int n, int bufferBytes) throws Exception {
        List<Pair> pairs = new ArrayList<>();
        try (MultipathListener l = f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                small().device("b").build())) {
            for (int i = 0; i < n; i++) {
                MultipathConnection c = f.connector.connect(l.localAddress(), small().device("a").build());
                MultipathConnection s = l.accept(30, TimeUnit.SECONDS);
                assertTrue(s != null, "server side accepted connection " + i);
                pairs.add(new Pair(new MultipathConnection[] {c, s}, bufferBytes));
            }
        }
        return pairs;
    }

    /** Live threads of this process by role (the second part of a {@code virtuoso-<role>-...} name). */
    private static Map<String, Integer> threadsByRole() {
        Map<String, Integer> out = new TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!t.isAlive()) {
                continue;
            }
            String[] parts = t.getName().split("-");
            String role = parts.length > 1 && parts[0].equals("virtuoso") ? parts[1] : "other";
            out.merge(role, 1, Integer::sum);
        }
        out.put("total", Thread.getAllStackTraces().size());
        return out;
    }

    private static Map<String, Integer> threadsWith(int pairs) throws Exception {
        EngineGroup engines = new EngineGroup(2);
        try (Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=0", "rate=0")) {
            List<Pair> ps = open(f, pairs, 64 * 1024);
            for (Pair p : ps) {
                p.write(64 * 1024);
            }
            Map<String, Integer> t = threadsByRole();
            System.out.printf("threads with %d connection(s) (both ends in this process, 2 engine agents): %s%n",
                    pairs, t);
            assertEquals(2, engines.threads().size(), "engine agent threads");
            t.put("group-agents", engines.threads().size());
            t.put("group-devices", engines.openDevices());
            return t;
        } finally {
            assertTrue(engines.close(10_000), "agents stopped");
        }
    }

    @Test
    void engineThreadsDoNotGrowWithConnections() throws Exception {
        Map<String, Integer> one = threadsWith(1);
        Map<String, Integer> many = threadsWith(64);
        assertEquals(one.get("group-agents"), many.get("group-agents"), "engine threads independent of connections");
        // one device (channel and CQ event thread) per agent and device in use: client a, server b
        assertTrue(one.get("group-devices") >= 1 && one.get("group-devices") <= 4, one.toString());
        assertTrue(many.get("group-devices") <= 4, "at most agents x devices, whatever the connections: " + many);
        assertEquals(one.get("cqev"), many.get("cqev"), "CQ event threads independent of connections");
        assertFalse(many.containsKey("conn"), "no per-connection engine threads: " + many);
    }

    @Test
    void manyConnectionsOnFewAgentsAllMoveVerifiedData() throws Exception {
        EngineGroup engines = new EngineGroup(2);
        try (Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=0", "rate=0")) {
            List<Pair> pairs = open(f, 24, 256 * 1024);
            int[] loads = engines.loads();
            assertEquals(48, loads[0] + loads[1]);
            assertTrue(Math.abs(loads[0] - loads[1]) <= 1, "least loaded assignment: " + loads[0] + "/" + loads[1]);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (Pair p : pairs) {
                    done.add(pool.submit(() -> {
                        for (int r = 0; r < 4; r++) {
                            p.write(256 * 1024);
                            p.read(64 * 1024);
                            p.sendAll(1000, 100_000);
                        }
                        return null;
                    }));
                }
                for (Future<?> d : done) {
                    d.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(0, engines.agentErrors());
        } finally {
            assertTrue(engines.close(10_000));
        }
        assertArrayEquals(new int[2], engines.loads(), "every connection released its agent");
    }

    @Test
    void concurrentConnectAndCloseReleasesEverything() throws Exception {
        EngineGroup engines = new EngineGroup(3);
        try (Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=0", "rate=0")) {
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            try (MultipathListener l = f.connector.listen(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), small().device("b").build())) {
                int clients = 4;
                int rounds = 6;
                Thread acceptor = new Thread(() -> {
                    for (int i = 0; i < clients * rounds; i++) {
                        try {
                            MultipathConnection s = l.accept(30, TimeUnit.SECONDS);
                            if (s == null) {
                                failures.add(new AssertionError("accept " + i + " timed out"));
                                return;
                            }
                            if ((i & 1) == 0) {
                                s.close(); // half the closes start on the server side
                            }
                        } catch (Exception e) {
                            failures.add(e);
                        }
                    }
                }, "test-acceptor");
                acceptor.start();
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> ts = new ArrayList<>();
                for (int k = 0; k < clients; k++) {
                    Thread t = new Thread(() -> {
                        try {
                            go.await();
                            for (int r = 0; r < rounds; r++) {
                                MultipathConnection c = f.connector.connect(l.localAddress(),
                                        small().device("a").build());
                                c.close();
                                assertTrue(c.state() == ConnectionState.CLOSED || c.state() == ConnectionState.FAILED,
                                        c.toString());
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    }, "test-client-" + k);
                    ts.add(t);
                    t.start();
                }
                go.countDown();
                for (Thread t : ts) {
                    t.join(120_000);
                    assertFalse(t.isAlive(), "client finished");
                }
                acceptor.join(120_000);
                assertFalse(acceptor.isAlive(), "acceptor finished");
            }
            assertTrue(failures.isEmpty(), "failures: " + failures);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!f.connector.connections().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(List.of(), f.connector.connections(), "every connection ended");
            assertArrayEquals(new int[3], engines.loads(), "no agent counts a connection");
            assertEquals(0, engines.openDevices(), "devices closed with their last connection");
            assertEquals(3, engines.threads().size(), "the agents live on");
            assertEquals(0, engines.agentErrors());
        } finally {
            assertTrue(engines.close(10_000));
        }
        assertEquals(List.of(), engines.threads(), "agent threads stopped");
    }

    @Test
    void aConnectionClosingWhileOthersTransferDisturbsNone() throws Exception {
        EngineGroup engines = new EngineGroup(1); // everyone on the same agent
        try (Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=500m", "rate=500m")) {
            List<Pair> pairs = open(f, 6, 1 << 20);
            Pair victim = pairs.get(0);
            ExecutorService pool = Executors.newFixedThreadPool(5);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (Pair p : pairs.subList(1, pairs.size())) {
                    done.add(pool.submit(() -> {
                        for (int r = 0; r < 6; r++) {
                            p.write(1 << 20);
                        }
                        return null;
                    }));
                }
                for (int i = 0; i < 8; i++) {
                    victim.client.postWrite(100 + i, victim.clientMr, 0, 1 << 20, victim.serverMr.remote(), 0);
                }
                Thread.sleep(5);
                victim.client.disconnect(0, TimeUnit.MILLISECONDS);
                assertEquals(ConnectionState.CLOSED, victim.client.state());
                for (Future<?> d : done) {
                    d.get(120, TimeUnit.SECONDS); // every byte of the others verified by Pair.write
                }
            } finally {
                pool.shutdownNow();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (victim.server.state() == ConnectionState.ESTABLISHED && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(ConnectionState.CLOSED, victim.server.state(), "the peer heard of the disconnect");
            for (Pair p : pairs.subList(1, pairs.size())) {
                assertEquals(ConnectionState.ESTABLISHED, p.client.state());
                p.read(4096);
            }
            assertEquals(10, engines.loads()[0], "the closed pair released its two ends");
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void aFullWakeQueueFallsBackToAScanAndLosesNoWakeUp() throws Exception {
        EngineGroup engines = EngineGroup.withWakeQueue(1, 2); // a wake-up queue of two for sixteen connection ends
        try (Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=0", "rate=0")) {
            List<Pair> pairs = open(f, 8, 64 * 1024);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (Pair p : pairs) {
                    done.add(pool.submit(() -> {
                        for (int r = 0; r < 40; r++) {
                            p.write(1 + (r * 997) % (64 * 1024)); // every byte checked
                            Thread.sleep(r % 3); // let the connection go quiet now and then
                        }
                        return null;
                    }));
                }
                for (Future<?> d : done) {
                    d.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            System.out.printf("wake-ups served by a scan (queue full): %d%n", engines.wakeOverflows());
            assertTrue(engines.wakeOverflows() > 0, "the queue overflowed at least once");
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void quietConnectionsAreNotRun() throws Exception {
        EngineGroup engines = new EngineGroup(1);
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0", "rate=0")) {
            List<Pair> pairs = open(f, 16, 64 * 1024);
            for (Pair p : pairs) {
                p.write(64 * 1024);
            }
            // wait until every connection went quiet (no duty cycle for 200 ms), at most 10 s
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long before;
            long after;
            do {
                before = engines.duties();
                Thread.sleep(200);
                after = engines.duties();
            } while (after != before && System.nanoTime() < deadline);
            Thread.sleep(500);
            long idle = engines.duties() - after;
            System.out.printf("duty cycles of 32 quiet connection ends over 500 ms: %d%n", idle);
            assertEquals(0, idle, "a quiet connection is not run");
            // and a quiet connection wakes at once for new work
            pairs.get(7).write(64 * 1024);
            assertTrue(engines.duties() > after, "woken by the request");
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void closingTheGroupFailsWhatIsLeftAndStopsItsThreads() throws Exception {
        EngineGroup engines = new EngineGroup(2);
        Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=0");
        try {
            Pair p = open(f, 1, 4096).get(0);
            p.write(4096);
            assertEquals(2, engines.threads().size());
            assertTrue(engines.close(10_000), "stopped within the timeout");
            assertEquals(List.of(), engines.threads());
            assertEquals(ConnectionState.FAILED, p.client.state());
            assertEquals(ConnectionState.FAILED, p.server.state());
            assertArrayEquals(new int[2], engines.loads());
            assertEquals(0, engines.openDevices(), "devices closed");
            assertEquals(0, engines.agentErrors(), "stopping the agents is not an agent failure");
        } finally {
            f.close();
        }
    }
}
