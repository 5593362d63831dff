package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * A user who asks for the DiSNI provider on a host where the binding registered none (here: no
 * RDMA device, and no libdisni in the standard configuration) gets PROVIDER_UNAVAILABLE naming
 * {@code disni}, from both listen and connect, although the soft provider is registered: there is
 * no silent fallback to the soft RNIC.
 */
public class DisniExplicitRequestTest extends VirtuosoOsgiTestSupport {

    @Test
    public void explicitRequestForDisniFailsClearlyInsteadOfFallingBackToSoft() throws Exception {
        InFramework.explicitRequestFails(this);
    }

    /** The test body; a class of its own, so the host's JUnit never loads the API types it uses. */
    private static final class InFramework {

        static void explicitRequestFails(DisniExplicitRequestTest test) throws Exception {
            String problem = BundleDiagnostics.problem(test.bundle("dev.virtuoso.verbs.disni"));
            assertNull(problem, problem);
            assertNull("a provider=disni service on a host without RDMA devices", test.context()
                    .getAllServiceReferences(VerbsProvider.class.getName(),
                            "(" + VerbsProvider.PROVIDER_PROPERTY + "=disni)"));
            try (TrackedService<VerbsProvider> soft = test.awaitService(VerbsProvider.class,
                    "(" + VerbsProvider.PROVIDER_PROPERTY + "=soft)", "dev.virtuoso.verbs.soft", SERVICE_TIMEOUT);
                    TrackedService<MultipathConnector> connector = test.awaitService(MultipathConnector.class, null,
                            "dev.virtuoso.qpmanager", SERVICE_TIMEOUT)) {
                assertNotNull("the soft provider is there to fall back to", soft.service());
                // a provider that never comes: a short bound on the wait for it (default 5 s)
                ConnectOptions disniOnly = ConnectOptions.builder().provider("disni")
                        .providerTimeout(java.time.Duration.ofMillis(500)).build();
                InetAddress loopback = InetAddress.getLoopbackAddress();
                try (MultipathListener listener = connector.service().listen(new InetSocketAddress(loopback, 0),
                        disniOnly)) {
                    fail("listen with provider=disni succeeded without a disni provider: " + listener);
                } catch (VirtuosoException e) {
                    assertUnavailable(e);
                }
                try {
                    connector.service().connect(new InetSocketAddress(loopback, 9), disniOnly).close();
                    fail("connect with provider=disni succeeded without a disni provider");
                } catch (VirtuosoException e) {
                    assertUnavailable(e);
                }
            }
        }

        private static void assertUnavailable(VirtuosoException e) {
            assertEquals(e.toString(), VirtuosoException.Reason.PROVIDER_UNAVAILABLE, e.reason());
            assertTrue("the error names the provider asked for: " + e.getMessage(), e.getMessage().contains("disni"));
        }

        private InFramework() {
        }
    }
}
