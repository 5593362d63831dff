package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.util.Collection;

import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.spi.policy.DefaultPolicyRank;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;

/**
 * A connection that names no policy runs on {@value ConnectOptions#DEFAULT_POLICY}, which the policy
 * binding publishes for the best-ranked candidates (lb-proportional and cc-fixed in the standard
 * set); when lb-proportional's bundle stops the default stands for the next best (lb-adaptive) and
 * the connection is back on the default carrying MP_WRITEs over every path; when it starts again the
 * default is lb-proportional again.
 */
public class DefaultPolicyTest extends VirtuosoOsgiTestSupport {
    private static final String BEST_BUNDLE = "dev.virtuoso.policy.lb.proportional";

    @Test
    public void aConnectionNamingNoPolicyRunsOnTheBestRankedOne() throws Exception {
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
            fabric.configureFabric("rate=200m", 3);
            MultipathConnection[] cs = fabric.connect(SoftFabric.softOptions());
            MultipathConnection client = cs[0];
            WriteStream stream = new WriteStream(cs, 8 << 20);
            awaitStandsFor("lb-proportional", "the best-ranked load balancer");
            awaitInUse(client, ConnectOptions.DEFAULT_POLICY);
            assertEquals(ConnectOptions.DEFAULT_POLICY, client.congestionAvoidance());
            assertEquals("cc-fixed", standsFor(test.context(), "dev.virtuoso.spi.policy.CongestionAvoidancePolicy"));
            assertEveryPathCarries(client, stream);

            Bundle best = test.bundle(BEST_BUNDLE);
            try {
                best.stop();
                awaitStandsFor("lb-adaptive", "the next best while " + BEST_BUNDLE + " is stopped");
                awaitInUse(client, ConnectOptions.DEFAULT_POLICY);
                assertEveryPathCarries(client, stream);
            } finally {
                best.start();
            }
            awaitStandsFor("lb-proportional", "the best again after " + BEST_BUNDLE + " started");
            awaitInUse(client, ConnectOptions.DEFAULT_POLICY);
            assertEveryPathCarries(client, stream);
        }

        private void awaitStandsFor(String name, String why) throws Exception {
            long deadline = System.nanoTime() + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toNanos();
            String now;
            while (!name.equals(now = standsFor(test.context(), LoadBalancerPolicy.class.getName()))) {
                if (System.nanoTime() > deadline) {
                    fail(why + ": the default load balancer stands for " + now + ", expected " + name);
                }
                Thread.sleep(10);
            }
        }

        private static String standsFor(BundleContext context, String type) throws Exception {
            ServiceReference<?>[] refs = context.getServiceReferences(type,
                    "(" + LoadBalancerPolicy.NAME_PROPERTY + "=" + ConnectOptions.DEFAULT_POLICY + ")");
            if (refs == null || refs.length == 0) {
                return null;
            }
            assertEquals("one default service of " + type, 1, refs.length);
            return String.valueOf(refs[0].getProperty(DefaultPolicyRank.STANDS_FOR_PROPERTY));
        }

        private static void awaitInUse(MultipathConnection c, String name) throws InterruptedException {
            long deadline = System.nanoTime() + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toNanos();
            while (!name.equals(c.loadBalancer())) {
                if (System.nanoTime() > deadline) {
                    fail("expected " + name + " in use, the connection uses " + c.loadBalancer());
                }
                Thread.sleep(10);
            }
        }

        /** An 8 MiB MP_WRITE: every path's completed bytes grow (equal paths, a load balancer that splits). */
        private static void assertEveryPathCarries(MultipathConnection client, WriteStream stream) throws Exception {
            long[] before = client.pathStats().stream().mapToLong(PathStats::bytesCompleted).toArray();
            stream.write();
            Collection<PathStats> after = client.pathStats();
            int i = 0;
            for (PathStats p : after) {
                if (p.bytesCompleted() <= before[i++]) {
                    fail("a path carried nothing of the MP_WRITE: " + after);
                }
            }
        }
    }
}
