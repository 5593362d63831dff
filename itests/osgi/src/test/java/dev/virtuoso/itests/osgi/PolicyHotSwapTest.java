package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;
import org.osgi.framework.Bundle;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;

/**
 * Load-balancing policies swapped on a live connection while a 1 GiB MP_WRITE stream runs
 * (16 MP_WRITEs of 64 MiB into one 64 MiB remote region, each checked byte for byte): switched by
 * {@code setLoadBalancer}, taken away by stopping the policy's bundle (the connection moves to its
 * fallback, {@code lb-roundrobin}), brought back by starting it (the connection returns to it by
 * itself), and replaced by {@code Bundle.update} (fallback, then return). Every action happens while an MP_WRITE is in flight (asserted from the
 * paths' completed-byte counters); no MP work request may fail.
 */
public class PolicyHotSwapTest extends VirtuosoOsgiTestSupport {

    @Test
    public void swapsStopsRestartsAndUpdatesTheLoadBalancerMidStream() throws Exception {
        try (SoftFabric fabric = new SoftFabric(this)) {
            new InFramework(this, fabric).run();
        }
    }

    /** The test body; a class of its own, so the host's JUnit never loads the API types it uses. */
    private static final class InFramework {
        private static final int PATHS = 3;
        private static final int WRITE_BYTES = 64 << 20;
        private static final int WRITES = 16;
        private static final String ROUND_ROBIN = "lb-roundrobin";
        private static final String ADAPTIVE = "lb-adaptive";
        private static final String PROPORTIONAL = "lb-proportional";
        private static final String PROPORTIONAL_BUNDLE = "dev.virtuoso.policy.lb.proportional";

        private final VirtuosoOsgiTestSupport test;
        private final SoftFabric fabric;
        private MultipathConnection client;
        private WriteStream stream;

        InFramework(VirtuosoOsgiTestSupport test, SoftFabric fabric) {
            this.test = test;
            this.fabric = fabric;
        }

        void run() throws Exception {
            // 3 x 200 Mbit/s: a 64 MiB MP_WRITE takes about 0.9 s, so a bundle stop or update
            // (tens of ms) lands well inside it; the 1 GiB stream takes about 15 s
            fabric.configureFabric("rate=200m", PATHS);
            // 256 KiB chunks: each 64 MiB MP_WRITE is 256 chunk boundaries for a swap to land on
            MultipathConnection[] cs = fabric.connect(SoftFabric.softOptions().loadBalancer(ROUND_ROBIN)
                    .fallbackLoadBalancer(ROUND_ROBIN).chunkSize(256 << 10)
                    .congestionAvoidance(ConnectOptions.BUILTIN_FIXED_CHUNK));
            client = cs[0];
            stream = new WriteStream(cs, WRITE_BYTES);
            assertEquals(ROUND_ROBIN, client.loadBalancer());
            Bundle proportional = test.bundle(PROPORTIONAL_BUNDLE);

            // (a) swaps between policy services mid-transfer
            stream.write();
            stream.write(() -> swap(ADAPTIVE));
            stream.write(() -> swap(PROPORTIONAL));
            stream.write();
            assertEquals(PROPORTIONAL, client.loadBalancer());

            // (b) the policy in use goes away with its bundle: the fallback takes over
            stream.write(proportional::stop);
            assertEquals("moved to the fallback when " + PROPORTIONAL_BUNDLE + " stopped", ROUND_ROBIN,
                    client.loadBalancer());
            stream.write();
            proportional.start();
            awaitPolicy(PROPORTIONAL, PROPORTIONAL_BUNDLE);
            awaitInUse(PROPORTIONAL);
            stream.write();
            assertEquals(PROPORTIONAL, client.loadBalancer());

            // (c) the policy in use is updated (stopped, re-read, started) mid-transfer
            // the connection runs on the fallback while the bundle is away and returns to its chosen
            // policy by itself when the updated bundle registers it again
            stream.write(proportional::update);
            assertEquals(Bundle.ACTIVE, proportional.getState());
            awaitPolicy(PROPORTIONAL, PROPORTIONAL_BUNDLE);
            awaitInUse(PROPORTIONAL);
            stream.write();

            String[] rotation = {ADAPTIVE, ROUND_ROBIN, PROPORTIONAL};
            for (int i = 0; stream.written() < WRITES; i++) {
                String next = rotation[i % rotation.length];
                stream.write(() -> swap(next));
                assertEquals(next, client.loadBalancer());
            }

            long chunks = 0;
            int pathsUsed = 0;
            for (PathStats path : client.pathStats()) {
                assertEquals("no chunk failed: " + path, 0, path.chunksFailed());
                chunks += path.chunksCompleted();
                pathsUsed += path.chunksCompleted() > 0 ? 1 : 0;
            }
            assertEquals("every path carried chunks: " + client.pathStats(), PATHS, pathsUsed);
            assertTrue("at least 256 chunks per 64 MiB: " + chunks, chunks >= (long) WRITES * 256);
        }

        /**
         * Switches the load balancer. The connector binds policy services in its own service
         * listener, which may run after the test's tracker saw a re-registered policy, so an
         * UNKNOWN_POLICY refusal is retried for at most {@link VirtuosoOsgiTestSupport#SERVICE_TIMEOUT}.
         */
        private void swap(String name) throws VirtuosoException, InterruptedException {
            long deadline = System.nanoTime() + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toNanos();
            while (true) {
                try {
                    client.setLoadBalancer(name);
                    break;
                } catch (VirtuosoException e) {
                    if (e.reason() != VirtuosoException.Reason.UNKNOWN_POLICY || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(5);
                }
            }
            assertEquals(name, client.loadBalancer());
        }

        /** Waits, bounded, until the connection has returned to its chosen policy. */
        private void awaitInUse(String name) throws InterruptedException {
            long deadline = System.nanoTime() + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toNanos();
            while (!name.equals(client.loadBalancer()) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals("returned to the chosen policy when it registered again", name, client.loadBalancer());
        }

        /** Waits, bounded, until the policy's bundle has registered it again. */
        private void awaitPolicy(String name, String bundle) throws InterruptedException {
            try (TrackedService<LoadBalancerPolicy> policy = test.awaitService(LoadBalancerPolicy.class,
                    "(" + LoadBalancerPolicy.NAME_PROPERTY + "=" + name + ")", bundle,
                    VirtuosoOsgiTestSupport.SERVICE_TIMEOUT)) {
                assertEquals(name, policy.service().name());
            }
        }
    }
}
