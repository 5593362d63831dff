package dev.virtuoso.itests.karaf;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.CoreOptions.systemTimeout;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.features;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.karaf.options.LogLevelOption.LogLevel;
import org.ops4j.pax.exam.options.MavenArtifactUrlReference;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.SynchronousBundleListener;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;

/**
 * Apache Karaf from Maven Central with the project's feature repository added
 * ({@code mvn:dev.virtuoso/virtuoso-features/VERSION/xml/features}) and the features
 * {@code virtuoso-soft} and {@code virtuoso-policies} installed, as docs/embedding.md tells a user
 * to do. The soft RNIC is configured through Karaf's ConfigAdmin as a three-path in-process fabric,
 * and a stream of byte-checked 64 MiB MP_WRITEs runs while the policy bundle in use is stopped
 * (the connection is on its fallback {@code lb-roundrobin} while the bundle is stopped), started (the
 * application selects it again) and updated in place with {@code Bundle.update} from its {@code mvn:}
 * location (on the fallback while the bundle is stopped during the update, then selected again).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafFeaturesTest {
    private static final String MVN_CFG = "etc/org.ops4j.pax.url.mvn.cfg";
    private static final long TIMEOUT_MILLIS = 30_000;
    private static final int PATHS = 3;
    private static final String ROUND_ROBIN = "lb-roundrobin";
    private static final String PROPORTIONAL = "lb-proportional";
    private static final String PROPORTIONAL_BUNDLE = "dev.virtuoso.policy.lb.proportional";

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        String karafVersion = required("virtuoso.karaf.version");
        MavenArtifactUrlReference karaf = maven().groupId("org.apache.karaf").artifactId("apache-karaf")
                .type("tar.gz").version(karafVersion);
        MavenArtifactUrlReference virtuosoFeatures = maven().groupId("dev.virtuoso").artifactId("virtuoso-features")
                .type("xml").classifier("features").version(required("virtuoso.version"));
        List<Option> options = new ArrayList<>(List.of(
                karafDistributionConfiguration().frameworkUrl(karaf).name("Apache Karaf")
                        .unpackDirectory(new File(required("virtuoso.itest.workdir"))).useDeployFolder(false),
                configureConsole().ignoreLocalConsole().ignoreRemoteShell(),
                logLevel(LogLevel.WARN),
                systemTimeout(TIMEOUT_MILLIS * 4),
                // Karaf resolves from its system/ folder and the module's target/maven-repo, never remotely
                editConfigurationFilePut(MVN_CFG, "org.ops4j.pax.url.mvn.localRepository",
                        required("virtuoso.itest.repository")),
                editConfigurationFilePut(MVN_CFG, "org.ops4j.pax.url.mvn.repositories", ""),
                editConfigurationFilePut(MVN_CFG, "org.ops4j.pax.url.mvn.offline", "true"),
                // what a user types: feature:repo-add <virtuosoFeatures>; feature:install virtuoso-soft virtuoso-policies
                features(virtuosoFeatures, "virtuoso-soft", "virtuoso-policies")));
        options.add(KarafJava.options(karafVersion));
        return options.toArray(new Option[0]);
    }

    @Test
    public void featuresInstallAndAPolicyBundleIsStoppedStartedAndUpdatedUnderByteCheckedTraffic() throws Exception {
        for (String name : new String[] {"dev.virtuoso.api", "dev.virtuoso.qpmanager", "dev.virtuoso.verbs.soft",
                PROPORTIONAL_BUNDLE, "dev.virtuoso.policy.lb.roundrobin", "org.apache.felix.scr"}) {
            assertEquals(name + " state", Bundle.ACTIVE, bundle(name).getState());
        }
        Dictionary<String, Object> mvn = service(ConfigurationAdmin.class)
                .getConfiguration("org.ops4j.pax.url.mvn", null).getProperties();
        assertNotNull("Karaf's pax-url-aether configuration", mvn);
        assertEquals("no remote repository: every artifact came from target/maven-repo or system/", "",
                String.valueOf(mvn.get("org.ops4j.pax.url.mvn.repositories")).trim());
        assertEquals("true", String.valueOf(mvn.get("org.ops4j.pax.url.mvn.offline")));
        configureFabric();
        MultipathConnector connector = service(MultipathConnector.class);
        List<InetAddress> a = addresses("10.0.1.");
        List<InetAddress> b = addresses("10.0.2.");
        ConnectOptions.Builder options = ConnectOptions.builder().provider("soft")
                .loadBalancer(ROUND_ROBIN).fallbackLoadBalancer(ROUND_ROBIN).chunkSize(256 << 10)
                .congestionAvoidance(ConnectOptions.BUILTIN_FIXED_CHUNK);
        // no wait for the re-configured provider here: listen and connect wait for devices a and b
        try (MultipathListener listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                options.device("b").localAddresses(b).build())) {
            MultipathConnection client = connector.connect(listener.localAddress(),
                    options.device("a").localAddresses(a).remoteAddresses(b).build());
            MultipathConnection server = listener.accept(10, TimeUnit.SECONDS);
            assertNotNull("device b accepted no connection within 10 s", server);
            assertEquals(ConnectionState.ESTABLISHED, client.state());
            assertEquals(PATHS, client.pathStats().size());
            Bundle proportional = bundle(PROPORTIONAL_BUNDLE);
            WriteStream stream = new WriteStream(client, server, 64 << 20);

            // the policy in use while the bundle is STOPPED (also the middle of an update), seen
            // synchronously, before anything can start the bundle again; the engine thread moves the
            // connection to its fallback between two chunks, so this waits (bounded) for that
            AtomicReference<String> whileStopped = new AtomicReference<>();
            SynchronousBundleListener stopped = event -> {
                if (event.getBundle() == proportional && event.getType() == BundleEvent.STOPPED) {
                    whileStopped.set(awaitLoadBalancer(client, ROUND_ROBIN));
                }
            };
            context.addBundleListener(stopped);
            try {
                stream.write(() -> swap(client, PROPORTIONAL));
                stream.write();
                stream.write(proportional::stop);
                assertEquals("on the fallback while " + PROPORTIONAL_BUNDLE + " is stopped", ROUND_ROBIN,
                        whileStopped.getAndSet(null));
                assertEquals(ROUND_ROBIN, client.loadBalancer());
                stream.write();
                proportional.start();
                stream.write(() -> swap(client, PROPORTIONAL));
                assertEquals(PROPORTIONAL, client.loadBalancer());
                stream.write(proportional::update);
                assertEquals("on the fallback while " + PROPORTIONAL_BUNDLE + " was being updated", ROUND_ROBIN,
                        whileStopped.getAndSet(null));
                assertEquals(Bundle.ACTIVE, proportional.getState());
                stream.write(() -> swap(client, PROPORTIONAL));
                stream.write();
                assertEquals(PROPORTIONAL, client.loadBalancer());
            } finally {
                context.removeBundleListener(stopped);
            }

            int pathsUsed = 0;
            for (PathStats path : client.pathStats()) {
                assertEquals("no chunk failed: " + path, 0, path.chunksFailed());
                pathsUsed += path.chunksCompleted() > 0 ? 1 : 0;
            }
            assertEquals("every path carried chunks: " + client.pathStats(), PATHS, pathsUsed);
            client.disconnect(5, TimeUnit.SECONDS);
            server.disconnect(5, TimeUnit.SECONDS);
        } finally {
            ConfigurationAdmin cm = service(ConfigurationAdmin.class);
            cm.getConfiguration(SOFT_PID, null).delete();
        }
    }

    private static final String SOFT_PID = "dev.virtuoso.verbs.soft";

    /** The soft RNIC as hosts a (10.0.1.x) and b (10.0.2.x), path i a 200 Mbit/s link of its own. */
    private void configureFabric() throws Exception {
        StringBuilder spec = new StringBuilder("a=10.0.1.1,10.0.1.2,10.0.1.3 b=10.0.2.1,10.0.2.2,10.0.2.3");
        for (int i = 1; i <= PATHS; i++) {
            spec.append("; link 10.0.1.").append(i).append("-10.0.2.").append(i).append(" rate=200m");
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("wire", "fabric");
        props.put("fabricSpec", spec.toString());
        service(ConfigurationAdmin.class).getConfiguration(SOFT_PID, null).update(props);
    }

    /**
     * Selects a load balancer. The connector binds a policy service in its own service listener, so
     * just after the bundle (re)started the name may be unknown for a moment: UNKNOWN_POLICY is
     * retried, bounded.
     */
    private static void swap(MultipathConnection c, String name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (true) {
            try {
                c.setLoadBalancer(name);
                return;
            } catch (VirtuosoException e) {
                if (e.reason() != VirtuosoException.Reason.UNKNOWN_POLICY || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }

    /** @return {@code c}'s load balancer once it is {@code name}, or whatever it is after 5 s */
    private static String awaitLoadBalancer(MultipathConnection c, String name) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        String seen = c.loadBalancer();
        while (!name.equals(seen) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return seen;
            }
            seen = c.loadBalancer();
        }
        return seen;
    }

    private <S> S service(Class<S> type) throws InterruptedException {
        ServiceTracker<S, S> tracker = new ServiceTracker<>(context, type, null);
        tracker.open();
        S s = tracker.waitForService(TIMEOUT_MILLIS);
        assertNotNull("no " + type.getName() + " service within " + TIMEOUT_MILLIS + " ms", s);
        return s; // the tracker stays open for the test's life: the framework ends with the test
    }

    private Bundle bundle(String symbolicName) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        List<String> seen = new ArrayList<>();
        do {
            seen.clear();
            for (Bundle candidate : context.getBundles()) {
                if (symbolicName.equals(candidate.getSymbolicName()) && candidate.getState() == Bundle.ACTIVE) {
                    return candidate;
                }
                seen.add(candidate.getSymbolicName() + "=" + candidate.getState());
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        fail(symbolicName + " not ACTIVE within " + TIMEOUT_MILLIS + " ms; bundles: " + seen);
        return null;
    }

    private static List<InetAddress> addresses(String prefix) throws Exception {
        List<InetAddress> out = new ArrayList<>();
        for (int i = 1; i <= PATHS; i++) {
            out.add(InetAddress.getByName(prefix + i));
        }
        return out;
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        assertTrue("system property " + property + " is not set; run through Maven", value != null);
        return value;
    }
}
