package dev.virtuoso.verbs.disni.osgi;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * TESTS ONLY: starts Felix or Equinox (chosen by the system property {@code it.framework}, one per
 * failsafe execution, so each runs in its own JVM with only its own OSGi classes) with SCR,
 * ConfigAdmin, the API bundle and the bundle under test.
 */
final class FrameworkHarness implements AutoCloseable {
    final Framework framework;
    final Bundle bundle;

    private FrameworkHarness(Framework framework, Bundle bundle) {
        this.framework = framework;
        this.bundle = bundle;
    }

    static String frameworkName() {
        return System.getProperty("it.framework", "felix");
    }

    /**
     * @param storage framework storage directory
     * @param extra additional framework properties
     * @return a started framework with the bundle under test installed and started
     */
    static FrameworkHarness start(Path storage, Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>(extra);
        props.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        props.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        FrameworkFactory factory = (FrameworkFactory) Class.forName(
                frameworkName().equals("equinox") ? "org.eclipse.osgi.launch.EquinoxFactory"
                        : "org.apache.felix.framework.FrameworkFactory").getDeclaredConstructor().newInstance();
        Framework fw = factory.newFramework(props);
        fw.start();
        BundleContext bc = fw.getBundleContext();
        List<Bundle> installed = new ArrayList<>();
        for (String name : List.of("org.osgi.util.function", "org.osgi.util.promise", "org.osgi.service.component",
                "org.apache.felix.scr",
                "org.apache.felix.configadmin", "virtuoso-api")) {
            installed.add(bc.installBundle(jarOnClasspath(name).toUri().toString()));
        }
        Path underTest = Path.of(System.getProperty("bundle.under.test"));
        if (!Files.isRegularFile(underTest)) {
            throw new IllegalStateException("bundle under test not packaged: " + underTest);
        }
        Bundle b = bc.installBundle(underTest.toUri().toString());
        for (Bundle i : installed) {
            i.start();
        }
        b.start();
        return new FrameworkHarness(fw, b);
    }

    private static Path jarOnClasspath(String artifact) {
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String f = Path.of(e).getFileName().toString();
            if (f.startsWith(artifact + "-") && f.endsWith(".jar")) {
                return Path.of(e);
            }
        }
        throw new IllegalStateException(artifact + " not on the test class path: "
                + Arrays.toString(System.getProperty("java.class.path").split(File.pathSeparator)));
    }

    BundleContext context() {
        return framework.getBundleContext();
    }

    @Override
    public void close() throws BundleException {
        framework.stop();
        try {
            framework.waitForStop(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
