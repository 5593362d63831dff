package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.util.Hashtable;
import java.util.function.Supplier;

import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;

/**
 * A ConfigAdmin policy binding ({@code dev.virtuoso.policy.binding}, {@code connection=*}) made
 * before any connection exists is applied to a connection created afterwards, with no shell or other
 * client having touched the binding component; when the bound policy's bundle is stopped the
 * connection runs on its fallback, and when the bundle is started again or updated the connection
 * returns to the bound policy, carrying MP_WRITEs on it (lb-single: one path).
 */
public class PolicyBindingTest extends VirtuosoOsgiTestSupport {

    private static final String FACTORY_PID = "dev.virtuoso.policy.binding";
    private static final String SINGLE = "lb-single";
    private static final String SINGLE_BUNDLE = "dev.virtuoso.policy.lb.single";
    private static final String ROUND_ROBIN = "lb-roundrobin";

    @Test
    public void wildcardBindingReachesNewConnectionsAndSurvivesThePolicyBundleRestartAndUpdate() throws Exception {
        try (SoftFabric fabric = new SoftFabric(this)) {
            new InFramework(this, fabric).run();
        }
    }

    /** The test body; a class of its own, so the host's JUnit never loads the API types it uses. */
    private static final class InFramework {
        private final VirtuosoOsgiTestSupport test;
        private final SoftFabric fabric;

        InFramework(VirtuosoOsgiTestSupport test, SoftFabric fabric) {
            this.test = test;
            this.fabric = fabric;
        }

        void run() throws Exception {
            Configuration binding;
            try (TrackedService<ConfigurationAdmin> cm = test.awaitService(ConfigurationAdmin.class, null, null,
                    VirtuosoOsgiTestSupport.SERVICE_TIMEOUT)) {
                binding = cm.service().createFactoryConfiguration(FACTORY_PID, "?");
                Hashtable<String, Object> props = new Hashtable<>();
                props.put("connection", "*");
                props.put("loadBalancer", SINGLE);
                binding.update(props);
            }
            try {
                fabric.configureFabric("rate=200m", 3);
                MultipathConnection[] cs = fabric.connect(SoftFabric.softOptions().loadBalancer(ROUND_ROBIN)
                        .fallbackLoadBalancer(ROUND_ROBIN).chunkSize(256 << 10)
                        .congestionAvoidance(ConnectOptions.BUILTIN_FIXED_CHUNK));
                MultipathConnection client = cs[0];
                WriteStream stream = new WriteStream(cs, 8 << 20);
                awaitPolicy(client, SINGLE, "the * binding applied to a connection created after it");
                assertOnePath(client, stream);

                Bundle single = test.bundle(SINGLE_BUNDLE);
                single.stop();
                awaitPolicy(client, ROUND_ROBIN, "on the fallback while " + SINGLE_BUNDLE + " is stopped");
                stream.write();
                single.start();
                awaitPolicy(client, SINGLE, "back on the bound policy after " + SINGLE_BUNDLE + " started again");
                assertOnePath(client, stream);

                single.update();
                assertEquals(Bundle.ACTIVE, single.getState());
                awaitPolicy(client, SINGLE, "back on the bound policy after " + SINGLE_BUNDLE + " was updated");
                assertOnePath(client, stream);
            } finally {
                binding.delete();
            }
        }

        /** An 8 MiB MP_WRITE on lb-single: only one path's completed bytes grow. */
        private static void assertOnePath(MultipathConnection client, WriteStream stream) throws Exception {
            long[] before = bytesPerPath(client);
            stream.write();
            long[] after = bytesPerPath(client);
            int grew = 0;
            for (int i = 0; i < after.length; i++) {
                grew += after[i] > before[i] ? 1 : 0;
            }
            assertEquals("paths that carried the MP_WRITE under " + SINGLE + ": " + client.pathStats(), 1, grew);
        }

        private static long[] bytesPerPath(MultipathConnection c) {
            return c.pathStats().stream().mapToLong(PathStats::bytesCompleted).toArray();
        }

        private static void awaitPolicy(MultipathConnection c, String name, String why) throws InterruptedException {
            Supplier<String> now = c::loadBalancer;
            long deadline = System.nanoTime() + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toNanos();
            while (!name.equals(now.get())) {
                if (System.nanoTime() > deadline) {
                    fail(why + ": expected " + name + ", the connection uses " + now.get() + " after "
                            + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toMillis() + " ms");
                }
                Thread.sleep(10);
            }
        }
    }
}
