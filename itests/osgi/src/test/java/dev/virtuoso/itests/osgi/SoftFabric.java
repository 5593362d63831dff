package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * Fixture of the tests that move data through the published services: configures the soft RNIC
 * through ConfigurationAdmin as an in-process fabric with two hosts, {@code a} (vNICs 10.0.1.x)
 * and {@code b} (10.0.2.x), path i being a link of its own between 10.0.1.i and 10.0.2.i, then
 * connects a to b through the {@link MultipathConnector} service. {@link #close()} disconnects
 * and deletes the configuration.
 *
 * <p>Used only inside the framework: the test classes the host's JUnit sees must not name project
 * types in their signatures or need them to verify (the host class path has no project bundles),
 * so they hand over to a nested class that uses this one.
 */
final class SoftFabric implements AutoCloseable {

    /** ConfigAdmin PID of the soft RNIC component (SoftVerbsComponent.PID). */
    static final String SOFT_PID = "dev.virtuoso.verbs.soft";
    /** Bound for one MP work request's completion. */
    static final long COMPLETION_TIMEOUT_SECONDS = 30;

    private final VirtuosoOsgiTestSupport test;
    private Configuration softConfiguration;
    private TrackedService<MultipathConnector> connector;
    private MultipathListener listener;
    private final List<MultipathConnection> connections = new ArrayList<>();
    /** Addresses of host a's vNICs, path order. */
    final List<InetAddress> aAddresses = new ArrayList<>();
    /** Addresses of host b's vNICs, path order. */
    final List<InetAddress> bAddresses = new ArrayList<>();

    /** @param test the running test, for its bundle context and bounded service waits */
    SoftFabric(VirtuosoOsgiTestSupport test) {
        this.test = test;
    }

    /**
     * Configures the fabric and waits, at most {@link VirtuosoOsgiTestSupport#SERVICE_TIMEOUT}, until
     * the {@code provider=soft} service offers devices a and b with that many vNICs each.
     *
     * @param linkSpec properties of every link, e.g. {@code rate=unlimited}
     * @param paths number of vNICs per host, one link per pair
     */
    void configureFabric(String linkSpec, int paths) throws Exception {
        StringBuilder a = new StringBuilder("a=");
        StringBuilder b = new StringBuilder("b=");
        StringBuilder links = new StringBuilder();
        for (int i = 1; i <= paths; i++) {
            aAddresses.add(ip("10.0.1." + i));
            bAddresses.add(ip("10.0.2." + i));
            a.append(i > 1 ? "," : "").append("10.0.1.").append(i);
            b.append(i > 1 ? "," : "").append("10.0.2.").append(i);
            links.append("; link 10.0.1.").append(i).append("-10.0.2.").append(i).append(' ').append(linkSpec);
        }
        String spec = a + " " + b + links;
        try (TrackedService<ConfigurationAdmin> cm = test.awaitService(ConfigurationAdmin.class, null, null,
                VirtuosoOsgiTestSupport.SERVICE_TIMEOUT)) {
            // bound to the verbs-soft bundle's location, so it is delivered to that bundle alone
            softConfiguration = cm.service().getConfiguration(SOFT_PID,
                    test.bundle("dev.virtuoso.verbs.soft").getLocation());
            Dictionary<String, Object> props = new Hashtable<>();
            props.put("wire", "fabric");
            props.put("fabricSpec", spec);
            softConfiguration.update(props);
        }
        awaitSoftDevices(paths);
    }

    private void awaitSoftDevices(int paths) throws Exception {
        long deadline = System.nanoTime() + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toNanos();
        String seen = "none";
        while (System.nanoTime() < deadline) {
            ServiceReference<VerbsProvider>[] refs = softProviders();
            for (ServiceReference<VerbsProvider> ref : refs) {
                VerbsProvider p = test.context().getService(ref);
                if (p == null) {
                    continue;
                }
                try {
                    List<RdmaDevice> devices = p.devices();
                    seen = devices.toString();
                    if (devices.size() == 2 && devices.stream().allMatch(d -> d.vnics().size() == paths)
                            && devices.stream().anyMatch(d -> d.name().equals("a"))
                            && devices.stream().anyMatch(d -> d.name().equals("b"))) {
                        return;
                    }
                } finally {
                    test.context().ungetService(ref);
                }
            }
            Thread.sleep(20);
        }
        fail("the provider=soft service did not offer devices a and b with " + paths + " vNICs within "
                + VirtuosoOsgiTestSupport.SERVICE_TIMEOUT.toMillis() + " ms; last seen: " + seen + "\n"
                + test.diagnose(VerbsProvider.class, "dev.virtuoso.verbs.soft"));
    }

    @SuppressWarnings("unchecked")
    private ServiceReference<VerbsProvider>[] softProviders() {
        try {
            ServiceReference<?>[] refs = test.context().getServiceReferences(VerbsProvider.class.getName(),
                    "(" + VerbsProvider.PROVIDER_PROPERTY + "=soft)");
            return refs == null ? new ServiceReference[0] : (ServiceReference<VerbsProvider>[]) refs;
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return options naming the soft provider, with a bounded handshake */
    static ConnectOptions.Builder softOptions() {
        return ConnectOptions.builder().provider("soft").handshakeTimeout(java.time.Duration.ofSeconds(5));
    }

    /**
     * Listens on device b and connects from device a through the {@link MultipathConnector}
     * service, pairing the vNICs in path order.
     *
     * @param client host a's options (device and addresses are set here)
     * @return {client, server}, both ESTABLISHED
     */
    MultipathConnection[] connect(ConnectOptions.Builder client) throws Exception {
        connector = test.awaitService(MultipathConnector.class, null, "dev.virtuoso.qpmanager", 
                VirtuosoOsgiTestSupport.SERVICE_TIMEOUT);
        listener = listenOnB();
        MultipathConnection c = connector.service().connect(listener.localAddress(),
                client.device("a").localAddresses(aAddresses).remoteAddresses(bAddresses).build());
        connections.add(c);
        MultipathConnection s = listener.accept(10, TimeUnit.SECONDS);
        assertNotNull("device b accepted no connection within 10 s", s);
        connections.add(s);
        assertEquals(ConnectionState.ESTABLISHED, c.state());
        assertEquals(ConnectionState.ESTABLISHED, s.state());
        assertEquals("one path per vNIC pair", aAddresses.size(), c.pathStats().size());
        return new MultipathConnection[] {c, s};
    }

    /**
     * Listens on device b. No retry: listen waits (bounded by the options' provider timeout) for
     * the connector to bind the soft provider re-created by {@link #configureFabric}.
     */
    private MultipathListener listenOnB() throws VirtuosoException {
        return connector.service().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                softOptions().device("b").localAddresses(bAddresses).build());
    }

    /** Disconnects whatever the test opened and deletes the fabric configuration. */
    @Override
    public void close() throws IOException {
        for (MultipathConnection c : connections) {
            c.disconnect(5, TimeUnit.SECONDS);
        }
        connections.clear();
        if (listener != null) {
            listener.close();
        }
        if (connector != null) {
            connector.close();
        }
        if (softConfiguration != null) {
            softConfiguration.delete();
        }
    }

    /** @return the next completion of {@code c}; fails after {@link #COMPLETION_TIMEOUT_SECONDS} */
    /** @return the bytes of every path's completed chunks on {@code c} */
    static long completedBytes(MultipathConnection c) {
        long sum = 0;
        for (PathStats path : c.pathStats()) {
            sum += path.bytesCompleted();
        }
        return sum;
    }

    /** Waits, bounded, until {@code c} has completed more than {@code before} bytes of chunks. */
    static void awaitProgress(MultipathConnection c, long before) throws InterruptedException {
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT_SECONDS * 1_000_000_000L;
        while (completedBytes(c) == before) {
            if (System.nanoTime() > deadline) {
                fail("no chunk completed within " + COMPLETION_TIMEOUT_SECONDS + " s: " + c.pathStats());
            }
            Thread.sleep(1);
        }
    }

    static MpCompletion await(MultipathConnection c) throws InterruptedException {
        MpCompletion done = new MpCompletion();
        assertTrue("no completion within " + COMPLETION_TIMEOUT_SECONDS + " s on " + c.id() + ", paths "
                + c.pathStats(), c.awaitCompletion(done, COMPLETION_TIMEOUT_SECONDS, TimeUnit.SECONDS));
        return done;
    }

    /** Fills {@code len} bytes at {@code off} with a xorshift pattern derived from {@code seed}. */
    static void fill(ByteBuffer b, int off, int len, long seed) {
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.putLong(off + i, x);
        }
        for (; i < len; i++) {
            b.put(off + i, (byte) (x >>> (8 * (i & 7))));
        }
    }

    /** Asserts two ranges are byte for byte equal. */
    static void assertSameBytes(String what, ByteBuffer a, int aOff, ByteBuffer b, int bOff, int len) {
        int m = a.slice(aOff, len).mismatch(b.slice(bOff, len));
        assertEquals(what + ": first differing byte at " + m + " of " + len, -1, m);
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
