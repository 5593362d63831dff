package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.List;

import org.junit.Test;
import org.osgi.framework.Bundle;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;

/**
 * The path monitor wired into the core in a framework: a connection opened while the pathmonitor
 * bundle runs has its paths probed (PathStats report a probed capacity), and stopping that bundle
 * while an MP_WRITE is in flight moves the connection back to the core's own path view with no MP
 * work request failed and every byte correct.
 */
public class PathMonitorWiringTest extends VirtuosoOsgiTestSupport {

    @Test
    public void probedConnectionSurvivesThePathMonitorBundleStoppingMidTransfer() throws Exception {
        try (SoftFabric fabric = new SoftFabric(this)) {
            new InFramework(this, fabric).run();
        }
    }

    /** The test body; a class of its own, so the host's JUnit never loads the API types it uses. */
    private static final class InFramework {
        private static final int PATHS = 2;
        private static final int WRITE_BYTES = 32 << 20;
        private static final String PATHMONITOR_BUNDLE = "dev.virtuoso.pathmonitor";
        private static final String PROPORTIONAL = "lb-proportional";
        private static final String ROUND_ROBIN = "lb-roundrobin";

        private final VirtuosoOsgiTestSupport test;
        private final SoftFabric fabric;
        private MultipathConnection client;

        InFramework(VirtuosoOsgiTestSupport test, SoftFabric fabric) {
            this.test = test;
            this.fabric = fabric;
        }

        void run() throws Exception {
            try (TrackedService<PathMonitorFactory> monitors = test.awaitService(PathMonitorFactory.class, null,
                    PATHMONITOR_BUNDLE, VirtuosoOsgiTestSupport.SERVICE_TIMEOUT)) {
                // the factory is registered before the connection is opened, so the connector has bound it
                assertTrue(monitors.service() != null);
            }
            // 2 x 200 Mbit/s: a 32 MiB MP_WRITE takes about 0.7 s, a bundle stop lands well inside it
            fabric.configureFabric("rate=200m", PATHS);
            MultipathConnection[] cs = fabric.connect(SoftFabric.softOptions().loadBalancer(PROPORTIONAL)
                    .fallbackLoadBalancer(ROUND_ROBIN).chunkSize(256 << 10)
                    .congestionAvoidance(ConnectOptions.BUILTIN_FIXED_CHUNK));
            client = cs[0];
            WriteStream stream = new WriteStream(cs, WRITE_BYTES);

            // the probes' accuracy is checked by the qpmanager unit tests (on warm code); here only
            // that the monitor bound in the framework measured every path
            awaitProbed();
            stream.write();

            Bundle pathmonitor = test.bundle(PATHMONITOR_BUNDLE);
            try {
                stream.write(pathmonitor::stop);
                assertEquals(Bundle.RESOLVED, pathmonitor.getState());
                stream.write();
                assertEquals("the load balancer was re-created, not replaced by the fallback", PROPORTIONAL,
                        client.loadBalancer());
            } finally {
                if (pathmonitor.getState() != Bundle.ACTIVE) {
                    pathmonitor.start();
                }
            }
            for (PathStats path : client.pathStats()) {
                assertEquals("no chunk failed: " + path, 0, path.chunksFailed());
                assertTrue("every path carried data: " + path, path.bytesCompleted() > 0);
            }
        }

        /** Waits, bounded, until every path reports a probed capacity. */
        private void awaitProbed() throws InterruptedException {
            long deadline = System.nanoTime() + SoftFabric.COMPLETION_TIMEOUT_SECONDS * 1_000_000_000L;
            List<PathStats> s = client.pathStats();
            while (s.stream().anyMatch(p -> p.probedCapacity() <= 0)) {
                if (System.nanoTime() > deadline) {
                    fail("paths not probed within " + SoftFabric.COMPLETION_TIMEOUT_SECONDS + " s: " + s);
                }
                Thread.sleep(10);
                s = client.pathStats();
            }
            assertEquals(PATHS, s.size());
        }
    }
}
