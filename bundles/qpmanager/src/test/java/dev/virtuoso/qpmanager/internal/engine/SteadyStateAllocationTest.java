package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;

/**
 * The data path allocates nothing per request once warm: the engine thread's allocation counter
 * barely moves over a thousand MP work requests of every kind, nor does the posting thread's.
 */
class SteadyStateAllocationTest {

    private static long allocated(Thread t) {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getThreadAllocatedBytes(
                t.getId());
    }

    /** The engine agent's thread serving the connection (it serves others as well). */
    private static Thread engineThread(dev.virtuoso.api.MultipathConnection c) {
        Thread t = ((MpConnection) c).engine().thread();
        if (t == null || !t.getName().startsWith("virtuoso-engine-")) {
            throw new AssertionError("no engine thread for " + c.id() + ": " + t);
        }
        return t;
    }

    private static void round(Pair p, MpCompletion c, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            p.server.postRecv(i, p.serverMr, 0, 300_000);
            p.client.postWrite(i, p.clientMr, 0, 200_000, p.serverMr.remote(), 0);
            p.client.postRead(i, p.clientMr, 0, 100, p.serverMr.remote(), 0);
            p.client.postSend(i, p.clientMr, 0, (i & 1) == 0 ? 1000 : 300_000);
            for (int k = 0; k < 3; k++) {
                while (!p.client.awaitCompletion(c, 10, java.util.concurrent.TimeUnit.SECONDS)) {
                    throw new AssertionError("stalled: " + ((MpConnection) p.client).describe());
                }
                if (!c.ok()) {
                    throw new AssertionError(c.toString());
                }
            }
            while (!p.server.awaitCompletion(c, 10, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new AssertionError("receive stalled");
            }
        }
    }

    @Test
    void engineAndPosterDoNotAllocatePerRequest() throws Exception {
        measure(false);
    }

    @Test
    void withAPathMonitorTheEngineDoesNotAllocatePerRequestEither() throws Exception {
        measure(true);
    }

    private static void measure(boolean monitored) throws Exception {
        Assumptions.assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx
                && mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled(),
                "needs per-thread allocation counters");
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            if (monitored) {
                f.connector.pathMonitors(new dev.virtuoso.pathmonitor.internal.PathMonitorService());
            }
            Pair p = new Pair(f.connect(Fabric.options().chunkSize(64 * 1024), Fabric.options()), 1 << 20);
            MpCompletion c = new MpCompletion();
            round(p, c, 300);
            Thread clientEngine = engineThread(p.client);
            Thread serverEngine = engineThread(p.server);
            long e0 = allocated(clientEngine);
            long s0 = allocated(serverEngine);
            long me0 = allocated(Thread.currentThread());
            int n = 1000;
            round(p, c, n);
            long e = allocated(clientEngine) - e0;
            long s = allocated(serverEngine) - s0;
            long me = allocated(Thread.currentThread()) - me0;
            if (monitored) {
                assertTrue(((MpConnection) p.client).engine().monitor().probesPosted() > 0, "the monitor probed");
            }
            System.out.printf("monitored=%b: allocated over %d rounds (4 requests each): client engine %d B, server engine %d B,"
                    + " poster %d B%n", monitored, n, e, s, me);
            assertTrue(e < 64 * 1024, "client engine allocated " + e + " bytes");
            assertTrue(s < 64 * 1024, "server engine allocated " + s + " bytes");
            assertTrue(me < 64 * 1024, "posting thread allocated " + me + " bytes");
        }
    }
}
