package dev.virtuoso.verbs.disni.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * (Service lookups use getAllServiceReferences: the API and ConfigAdmin jars are also on this
 * JVM's class path, which would make a class-space-filtered lookup from the system bundle blind.)
 *
 * <p>The packaged bundle in a real framework (Felix or Equinox, one per failsafe execution) on a host
 * without libdisni: it resolves (DiSNI and slf4j embedded, sun.nio.ch optional), its component
 * activates, logs exactly one line naming what is missing and registers no VerbsProvider, so a
 * core asking for provider=disni finds nothing (no silent fallback).
 */
class BundleResolutionIT {
    private static final String COMPONENT_LOGGER = "dev.virtuoso.verbs.disni.DisniProviderComponent";

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (COMPONENT_LOGGER.equals(r.getLoggerName())) {
                records.add(r);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLog() {
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        Logger.getLogger("").removeHandler(capture);
    }

    @Test
    void resolvesActivatesAndStaysQuietWithoutLibdisni(@TempDir Path storage) throws Exception {
        try (FrameworkHarness h = FrameworkHarness.start(storage, Map.of())) {
            assertEquals(Bundle.ACTIVE, h.bundle.getState(), FrameworkHarness.frameworkName());
            assertFalse(wiredTo(h.bundle, "sun.nio.ch"), "sun.nio.ch is optional and not exported here");
            String line = awaitLine(1);
            assertTrue(line.startsWith("DiSNI verbs provider (provider=disni) not registered: "), line);
            assertTrue(line.contains("libdisni not loadable"), line);
            assertNull(h.context().getAllServiceReferences((String) null, "(provider=disni)"));
            assertNull(h.context().getAllServiceReferences("dev.virtuoso.spi.verbs.VerbsProvider", null));

            // a host whose sysfs shows RoCE devices: only the library is missing now
            configure(h, Map.of("sysfsRoot", resource("sysfs-roce").toString()));
            String second = awaitLine(2);
            assertTrue(second.contains("libdisni not loadable") && !second.contains("RDMA device"), second);
            assertNull(h.context().getAllServiceReferences((String) null, "(provider=disni)"));

            h.bundle.stop();
            assertEquals(Bundle.RESOLVED, h.bundle.getState());
            assertEquals(2, records.size(), "one line per activation, nothing else: " + records);
        }
    }

    @Test
    void optionalSunNioChImportWiresWhenTheFrameworkExportsIt(@TempDir Path storage) throws Exception {
        try (FrameworkHarness h = FrameworkHarness.start(storage,
                Map.of("org.osgi.framework.system.packages.extra", "sun.nio.ch"))) {
            assertEquals(Bundle.ACTIVE, h.bundle.getState());
            assertTrue(wiredTo(h.bundle, "sun.nio.ch"));
            awaitLine(1);
            assertNull(h.context().getAllServiceReferences((String) null, "(provider=disni)"));
        }
    }

    private static boolean wiredTo(Bundle b, String pkg) {
        for (BundleWire w : b.adapt(BundleWiring.class).getRequiredWires("osgi.wiring.package")) {
            if (pkg.equals(w.getCapability().getAttributes().get("osgi.wiring.package"))) {
                return true;
            }
        }
        return false;
    }

    private String awaitLine(int count) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (records.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(records.size() >= count, "expected " + count + " log line(s), got " + records);
        return records.get(count - 1).getMessage();
    }

    /** ConfigAdmin through reflection: its API classes live in the framework's class space. */
    private static void configure(FrameworkHarness h, Map<String, String> values) throws Exception {
        ServiceReference<?> ref = null;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ref == null && System.nanoTime() < deadline) {
            ServiceReference<?>[] all = h.context().getAllServiceReferences("org.osgi.service.cm.ConfigurationAdmin", null);
            ref = all == null ? null : all[0];
            if (ref == null) {
                Thread.sleep(20);
            }
        }
        assertTrue(ref != null, "ConfigurationAdmin did not appear");
        Object admin = h.context().getService(ref);
        Class<?> adminType = ref.getBundle().loadClass("org.osgi.service.cm.ConfigurationAdmin");
        Class<?> configType = ref.getBundle().loadClass("org.osgi.service.cm.Configuration");
        Method get = adminType.getMethod("getConfiguration", String.class, String.class);
        Object config = get.invoke(admin, "dev.virtuoso.verbs.disni", "?");
        Dictionary<String, Object> d = new Hashtable<>(values);
        configType.getMethod("update", Dictionary.class).invoke(config, d);
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(BundleResolutionIT.class.getResource("/" + name).toURI());
    }
}
