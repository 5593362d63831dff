package dev.virtuoso.verbs.ibv.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.HashMap;
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
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * The packaged bundle in a real framework (Felix or Equinox, chosen by {@code it.framework}, one
 * failsafe execution each) on the JDK 22+ the build selected: it resolves (its osgi.ee JavaSE 22
 * requirement is met), its component activates, says in one line why it registers nothing (no RDMA
 * device here; then, reconfigured, a missing library) and no VerbsProvider appears.
 */
class BundleResolutionIT {
    private static final String COMPONENT_LOGGER = "dev.virtuoso.verbs.ibv.IbvProviderComponent";

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (COMPONENT_LOGGER.equals(r.getLoggerName())) {
                lines.add(r.getMessage());
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
    void resolvesOnJdk22PlusAndSaysWhyNoProviderIsRegistered(@TempDir Path storage) throws Exception {
        String[] devices = new File("/sys/class/infiniband").list();
        assumeFalse(devices != null && devices.length > 0, "skipped: this host has an RDMA device");
        Framework fw = start(storage);
        try {
            BundleContext bc = fw.getBundleContext();
            Bundle b = bc.installBundle(Path.of(System.getProperty("bundle.under.test")).toUri().toString());
            b.start();
            assertEquals(Bundle.ACTIVE, b.getState(), System.getProperty("it.framework"));
            String first = awaitLine(1);
            assertTrue(first.startsWith("libibverbs verbs provider (provider=ibv) not registered: "), first);
            boolean libraryInstalled = new File("/usr/lib/x86_64-linux-gnu/libibverbs.so.1").exists()
                    || new File("/usr/lib/aarch64-linux-gnu/libibverbs.so.1").exists();
            assertTrue(first.contains(libraryInstalled ? "but it lists no RDMA device" : "libibverbs not loadable"),
                    first);
            assertNull(bc.getAllServiceReferences("dev.virtuoso.spi.verbs.VerbsProvider", null));

            configure(bc, Map.of("libraryName", "libvirtuoso-no-such-ibverbs.so.1"));
            String second = awaitLine(2);
            assertTrue(second.contains("libibverbs not loadable as 'libvirtuoso-no-such-ibverbs.so.1'"), second);
            assertNull(bc.getAllServiceReferences("dev.virtuoso.spi.verbs.VerbsProvider", null));
            b.stop();
            assertEquals(2, lines.size(), "one line per activation: " + lines);
        } finally {
            fw.stop();
            fw.waitForStop(10_000);
        }
    }

    private static Framework start(Path storage) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        props.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        String factoryClass = "equinox".equals(System.getProperty("it.framework"))
                ? "org.eclipse.osgi.launch.EquinoxFactory" : "org.apache.felix.framework.FrameworkFactory";
        Framework fw = ((FrameworkFactory) Class.forName(factoryClass).getDeclaredConstructor().newInstance())
                .newFramework(props);
        fw.start();
        List<Bundle> deps = new ArrayList<>();
        for (String artifact : List.of("org.osgi.util.function", "org.osgi.util.promise",
                "org.osgi.service.component", "org.apache.felix.scr", "org.apache.felix.configadmin", "virtuoso-api")) {
            deps.add(fw.getBundleContext().installBundle(jarOnClasspath(artifact).toUri().toString()));
        }
        for (Bundle d : deps) {
            d.start();
        }
        return fw;
    }

    private static Path jarOnClasspath(String artifact) {
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String f = Path.of(e).getFileName().toString();
            if (f.startsWith(artifact + "-") && f.endsWith(".jar")) {
                return Path.of(e);
            }
        }
        throw new IllegalStateException(artifact + " not on the test class path");
    }

    private String awaitLine(int count) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (lines.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(lines.size() >= count, "expected " + count + " log line(s), got " + lines);
        return lines.get(count - 1);
    }

    /** ConfigAdmin through reflection: its API classes live in the framework's class space. */
    private static void configure(BundleContext bc, Map<String, String> values) throws Exception {
        ServiceReference<?> ref = null;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ref == null && System.nanoTime() < deadline) {
            ServiceReference<?>[] all = bc.getAllServiceReferences("org.osgi.service.cm.ConfigurationAdmin", null);
            ref = all == null ? null : all[0];
            if (ref == null) {
                Thread.sleep(20);
            }
        }
        assertTrue(ref != null, "ConfigurationAdmin did not appear");
        Object admin = bc.getService(ref);
        Class<?> adminType = ref.getBundle().loadClass("org.osgi.service.cm.ConfigurationAdmin");
        Class<?> configType = ref.getBundle().loadClass("org.osgi.service.cm.Configuration");
        Method get = adminType.getMethod("getConfiguration", String.class, String.class);
        Object config = get.invoke(admin, "dev.virtuoso.verbs.ibv", "?");
        Dictionary<String, Object> d = new Hashtable<>(values);
        configType.getMethod("update", Dictionary.class).invoke(config, d);
    }
}
