package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;

import org.junit.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.verbs.soft.fabric.api.FabricControl;

/**
 * Failover and failback in the running framework, driven through the soft provider's
 * {@link FabricControl} service as an operator would: a path's link is cut while a 64 MiB MP_WRITE
 * is in flight (the write still succeeds, every byte checked, the path's chunks having been posted
 * again on the others); the link comes back and the path rejoins and carries data again; with every
 * link cut, an MP_WRITE fails with PATH_FAILURE after the connection's failover timeout, and
 * nothing hangs.
 */
public class FailoverTest extends VirtuosoOsgiTestSupport {

    @Test
    public void cutPathFailsOverFailsBackAndNoPathLeftFailsInTime() throws Exception {
        try (SoftFabric fabric = new SoftFabric(this)) {
            new InFramework(this, fabric).run();
        }
    }

    /** The test body; a class of its own, so the host's JUnit never loads the API types it uses. */
    private static final class InFramework {
        private static final int PATHS = 3;
        private static final int CUT = 1;
        private static final int WRITE_BYTES = 64 << 20;
        private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(2);

        private final VirtuosoOsgiTestSupport test;
        private final SoftFabric fabric;
        private MultipathConnection client;
        private WriteStream stream;

        InFramework(VirtuosoOsgiTestSupport test, SoftFabric fabric) {
            this.test = test;
            this.fabric = fabric;
        }

        private static String link(int path) {
            return "10.0.1." + (path + 1) + "-10.0.2." + (path + 1);
        }

        void run() throws Exception {
            // 3 x 200 Mbit/s: a 64 MiB MP_WRITE takes about 0.9 s. ACK timeout 2^14 x 4.096 us = 67 ms
            // with 3 retries: the cut path's QP fails within about 0.3 s.
            fabric.configureFabric("rate=200m", PATHS);
            MultipathConnection[] cs = fabric.connect(SoftFabric.softOptions().chunkSize(256 << 10)
                    .loadBalancer(ConnectOptions.BUILTIN_ROUND_ROBIN).congestionAvoidance(ConnectOptions.BUILTIN_FIXED_CHUNK)
                    .ackTimeout(14).retryCount(3).failoverTimeout(FAILOVER_TIMEOUT));
            client = cs[0];
            stream = new WriteStream(cs, WRITE_BYTES);

            try (TrackedService<FabricControl> control = test.awaitService(FabricControl.class, null,
                    "dev.virtuoso.verbs.soft", VirtuosoOsgiTestSupport.SERVICE_TIMEOUT)) {
                FabricControl links = control.service();
                try {
                    failover(links);
                    failback(links);
                    noPathLeft(links);
                } finally {
                    for (int p = 0; p < PATHS; p++) {
                        links.up(link(p));
                    }
                }
            }
        }

        /** The cut path's chunks are posted again on the others: the MP_WRITE in flight succeeds. */
        private void failover(FabricControl links) throws Exception {
            stream.write();
            stream.write(() -> links.down(link(CUT)));
            assertTrue("the cut path lost chunks: " + client.pathStats(),
                    client.pathStats().get(CUT).chunksFailed() > 0);
            stream.write();
        }

        /** The link comes back: the path is repaired in the background and carries data again. */
        private void failback(FabricControl links) throws Exception {
            links.up(link(CUT));
            long before = client.pathStats().get(CUT).bytesCompleted();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (client.pathStats().get(CUT).bytesCompleted() == before && System.nanoTime() < deadline) {
                stream.write();
            }
            PathStats back = client.pathStats().get(CUT);
            assertEquals("the path failed back: " + client.pathStats(), PathState.UP, back.state());
            assertTrue("the path carries data again: " + back, back.bytesCompleted() > before);
        }

        /** Every link cut: the MP_WRITE fails with PATH_FAILURE, not before the failover timeout. */
        private void noPathLeft(FabricControl links) throws Exception {
            for (int p = 0; p < PATHS; p++) {
                links.down(link(p));
            }
            long start = System.nanoTime();
            long seed = stream.post();
            MpCompletion c = SoftFabric.await(client);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(c.toString(), seed, c.wrId());
            assertEquals("with no path left: " + c, MpStatus.PATH_FAILURE, c.status());
            assertTrue("failed after " + ms + " ms, the failover timeout is " + FAILOVER_TIMEOUT.toMillis(),
                    ms >= FAILOVER_TIMEOUT.toMillis());
        }
    }
}
