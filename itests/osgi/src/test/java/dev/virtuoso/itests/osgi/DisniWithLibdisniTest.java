package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemPackage;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.CoreOptions;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * The DiSNI binding bundle with the real libdisni (2.1, built from DiSNI's sources by
 * {@code bundles/verbs-disni/native/build-libdisni.sh}) on a host without RDMA devices: the bundle
 * is ACTIVE; its first activation loaded libdisni into the bundle's class loader (DiSNI's provider
 * singleton inside the bundle exists and gets JNI version 32 from the library, which is mapped
 * into the process from this framework's storage); every activation logs one line naming only the
 * missing device; no {@code provider=disni} service is registered. {@link DisniExplicitRequestTest}
 * covers asking for the provider.
 *
 * <p>libdisni reaches the bundle as {@code Bundle-NativeCode} of a fragment built before the
 * framework starts ({@link Libdisni} says why not {@code java.library.path}); the framework exports
 * {@code sun.nio.ch} and the JVM must run with {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED},
 * as docs/running-on-hardware.md asks. Without libdisni, or on a host with RDMA devices,
 * {@link RequiresLibdisni} skips the tests with the reason. Nothing refreshes the bundle (a new
 * class loader could not load the library again); stopping and starting it keeps the class loader.
 */
@RunWith(RequiresLibdisni.class)
public class DisniWithLibdisniTest extends VirtuosoOsgiTestSupport {

    @Configuration
    @Override
    public Option[] config() {
        List<Option> options = new ArrayList<>(Arrays.asList(VirtuosoOsgiOptions.baseline()));
        options.add(systemPackage("sun.nio.ch"));
        // not under the working directory: Pax Exam empties that when it starts the framework
        Path fragmentDir = Paths.get(System.getProperty(VirtuosoOsgiOptions.BUNDLES_DIR_PROPERTY), "libdisni");
        Libdisni.find().ifPresent(lib -> options.add(CoreOptions.bundle(
                VirtuosoOsgiOptions.location(Libdisni.fragment(lib, fragmentDir))).noStart()));
        return options.toArray(new Option[0]);
    }

    @Test
    public void firstActivationLoadsLibdisniIntoTheBundle() throws Exception {
        InFramework.firstActivationLoadedLibdisni(this);
    }

    @Test
    public void everyActivationLogsOnlyTheMissingDeviceAndRegistersNoProvider() throws Exception {
        InFramework.restartLogsOnlyTheMissingDevice(this);
    }

    /** The test bodies; a class of its own, so the host's JUnit never loads the API types they use. */
    private static final class InFramework {
        private static final String COMPONENT_LOGGER = "dev.virtuoso.verbs.disni.DisniProviderComponent";
        private static final String NO_DEVICE_LINE = "DiSNI verbs provider (provider=disni) not registered: "
                + "no RDMA device under " + RequiresLibdisni.DEVICES_DIR;

        static void firstActivationLoadedLibdisni(DisniWithLibdisniTest test) throws Exception {
            Bundle disni = activeDisniBundle(test);
            assertTrue("libdisni fragment not attached to " + Libdisni.HOST_BUNDLE + ": " + hostedFragments(disni),
                    hostedFragments(disni).contains(Libdisni.FRAGMENT_NAME));
            assertTrue("the JVM does not export sun.nio.ch to unnamed modules, so DiSNI cannot read buffer addresses:"
                    + " run the tests with --add-exports java.base/sun.nio.ch=ALL-UNNAMED in surefire's argLine",
                    Object.class.getModule().isExported("sun.nio.ch",
                            InFramework.class.getClassLoader().getUnnamedModule()));

            Class<?> providerType = disni.loadClass("com.ibm.disni.verbs.RdmaProvider");
            assertEquals("DiSNI's classes come from the bundle", disni.adapt(BundleWiring.class).getClassLoader(),
                    providerType.getClassLoader());
            Field singleton = providerType.getDeclaredField("provider");
            singleton.setAccessible(true);
            Object provider = singleton.get(null);
            assertNotNull("DiSNI's provider was not created by the bundle's activation", provider);
            assertEquals("com.ibm.disni.verbs.impl.RdmaProviderNat", provider.getClass().getName());
            assertEquals("JNI version libdisni answers the bundle's DiSNI classes", 32,
                    providerType.getMethod("getVersion").invoke(provider));

            Path storage = Paths.get(test.context().getProperty(Constants.FRAMEWORK_STORAGE)).toAbsolutePath();
            List<String> mapped = mappedLibdisni();
            assertTrue("libdisni mapped from this framework's storage " + storage + ": " + mapped,
                    mapped.stream().anyMatch(p -> p.startsWith(storage.toString())));
            assertNoDisniProvider(test);
        }

        static void restartLogsOnlyTheMissingDevice(DisniWithLibdisniTest test) throws Exception {
            Bundle disni = activeDisniBundle(test);
            assertNoDisniProvider(test);
            List<String> lines = new CopyOnWriteArrayList<>();
            Handler capture = new Handler() {
                @Override
                public void publish(LogRecord r) {
                    lines.add(r.getMessage());
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            // the component logs through System.Logger, i.e. java.util.logging; pax-logging may have
            // raised the root level, so the level is set on the component's logger itself
            Logger logger = Logger.getLogger(COMPONENT_LOGGER);
            Level level = logger.getLevel();
            logger.setLevel(Level.INFO);
            logger.addHandler(capture);
            try {
                // stop and start keep the class loader, and with it the library
                disni.stop();
                disni.start();
                assertNull(BundleDiagnostics.problem(disni), BundleDiagnostics.problem(disni));
                long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
                while (lines.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                Thread.sleep(100); // an unexpected second line would come right after the first
                assertEquals("the one line of an activation with libdisni loaded and no device",
                        List.of(NO_DEVICE_LINE), lines);
                assertNoDisniProvider(test);
            } finally {
                logger.removeHandler(capture);
                logger.setLevel(level);
            }
        }

        private static Bundle activeDisniBundle(DisniWithLibdisniTest test) {
            Bundle disni = test.bundle(Libdisni.HOST_BUNDLE);
            String problem = BundleDiagnostics.problem(disni);
            assertNull(problem, problem);
            return disni;
        }

        private static void assertNoDisniProvider(DisniWithLibdisniTest test) throws Exception {
            assertNull("a provider=disni service without an RDMA device", test.context().getAllServiceReferences(
                    VerbsProvider.class.getName(), "(" + VerbsProvider.PROVIDER_PROPERTY + "=disni)"));
            ServiceReference<?>[] registered = test.bundle(Libdisni.HOST_BUNDLE).getRegisteredServices();
            for (ServiceReference<?> ref : registered == null ? new ServiceReference<?>[0] : registered) {
                List<String> types = Arrays.asList((String[]) ref.getProperty(Constants.OBJECTCLASS));
                assertTrue("the DiSNI bundle registered " + types, !types.contains(VerbsProvider.class.getName()));
            }
        }

        private static List<String> hostedFragments(Bundle host) {
            List<String> names = new ArrayList<>();
            for (BundleWire wire : host.adapt(BundleWiring.class).getProvidedWires("osgi.wiring.host")) {
                names.add(wire.getRequirer().getSymbolicName());
            }
            return names;
        }

        /** @return paths of libdisni files mapped into this process */
        private static List<String> mappedLibdisni() throws IOException {
            try (Stream<String> maps = Files.lines(Paths.get("/proc/self/maps"))) {
                return maps.filter(line -> line.indexOf('/') >= 0)
                        .map(line -> line.substring(line.indexOf('/')))
                        .filter(path -> Paths.get(path).getFileName().toString().startsWith("libdisni"))
                        .distinct().collect(Collectors.toList());
            }
        }

        private InFramework() {
        }
    }
}
