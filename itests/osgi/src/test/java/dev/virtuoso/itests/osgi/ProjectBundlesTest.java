package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

/**
 * Every project bundle (every {@code dev.virtuoso} bundle {@link VirtuosoOsgiOptions} provisions) resolves and is
 * ACTIVE, and its DS components are satisfied and activate, together with SCR and ConfigAdmin, in
 * the framework this surefire execution selected. A failure names the bundle, its state and the
 * framework's resolution or activation error.
 */
public class ProjectBundlesTest extends VirtuosoOsgiTestSupport {

    @Test
    public void runsInTheFrameworkThisExecutionSelected() {
        String expected = VirtuosoOsgiOptions.expectedFramework();
        String systemBundle = context().getBundle(Constants.SYSTEM_BUNDLE_LOCATION).getSymbolicName();
        switch (expected) {
            case "felix":
                assertEquals("system bundle", "org.apache.felix.framework", systemBundle);
                break;
            case "equinox":
                assertEquals("system bundle", "org.eclipse.osgi", systemBundle);
                break;
            default:
                fail("unknown framework " + expected);
        }
    }

    @Test
    public void everyProjectBundleIsActive() {
        List<String> locations = VirtuosoOsgiOptions.projectBundleLocations();
        assertFalse("no project bundle provisioned; see VirtuosoOsgiOptions", locations.isEmpty());
        assertAllActive(locations, "dev.virtuoso.");
    }

    @Test
    public void apiBundleExportsTheApiAndBothSpis() {
        Bundle api = bundle("dev.virtuoso.api");
        String exports = api.getHeaders("").get(Constants.EXPORT_PACKAGE);
        assertNotNull("dev.virtuoso.api has no Export-Package", exports);
        for (String pkg : new String[] {"dev.virtuoso.api", "dev.virtuoso.spi.verbs", "dev.virtuoso.spi.policy"}) {
            assertTrue(pkg + " not exported: " + exports, exports.contains(pkg + ";"));
        }
    }

    @Test
    public void runtimeBundlesAreActive() {
        List<String> locations = VirtuosoOsgiOptions.runtimeBundleLocations();
        assertAllActive(locations, "org.");
        for (String name : new String[] {"org.apache.felix.scr", "org.apache.felix.configadmin"}) {
            assertEquals(name, Bundle.ACTIVE, bundle(name).getState());
        }
    }

    /**
     * With every project bundle present, no DS component may wait for a mandatory reference, and
     * every service a project bundle registers must be obtainable (getting it activates a delayed
     * component, so a failing activate method shows here even for bundles without a service test).
     */
    @Test
    public void everyProjectComponentIsSatisfiedAndActivates() throws InterruptedException {
        List<Bundle> bundles = new ArrayList<>();
        for (String location : VirtuosoOsgiOptions.projectBundleLocations()) {
            Bundle bundle = context().getBundle(location);
            assertNotNull(location + " not installed", bundle);
            bundles.add(bundle);
        }
        // SCR may still be processing registrations made while the framework started
        long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
        List<String> unsatisfied = unsatisfied(bundles);
        while (!unsatisfied.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            unsatisfied = unsatisfied(bundles);
        }
        List<String> problems = new ArrayList<>(unsatisfied);
        for (Bundle bundle : bundles) {
            ServiceReference<?>[] registered = bundle.getRegisteredServices();
            for (ServiceReference<?> ref : registered == null ? new ServiceReference<?>[0] : registered) {
                Object service = context().getService(ref);
                if (service == null) {
                    problems.add(bundle.getSymbolicName() + ": getService returned null for "
                            + Arrays.toString((String[]) ref.getProperty(Constants.OBJECTCLASS)));
                } else {
                    context().ungetService(ref);
                }
            }
            problems.addAll(ComponentDiagnostics.failures(context(), bundle));
        }
        assertTrue("components not working:\n  " + String.join("\n  ", problems), problems.isEmpty());
    }

    private List<String> unsatisfied(List<Bundle> bundles) {
        List<String> lines = new ArrayList<>();
        for (Bundle bundle : bundles) {
            lines.addAll(ComponentDiagnostics.unsatisfied(context(), bundle));
        }
        return lines;
    }

    /**
     * The check above must be able to fail: a bundle with an unresolvable import is reported with
     * its state and the framework's resolution error naming the missing package.
     */
    @Test
    public void unresolvableBundleIsReportedWithItsResolutionError() throws IOException, BundleException {
        Path jar = Files.createTempFile("virtuoso-unresolvable-", ".jar");
        Bundle broken = null;
        try {
            Manifest manifest = new Manifest();
            Attributes main = manifest.getMainAttributes();
            main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
            main.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
            main.putValue(Constants.BUNDLE_SYMBOLICNAME, "dev.virtuoso.itests.unresolvable");
            main.putValue(Constants.IMPORT_PACKAGE, "dev.virtuoso.no.such.pkg");
            try (OutputStream out = Files.newOutputStream(jar)) {
                new JarOutputStream(out, manifest).close(); // manifest only
            }
            broken = context().installBundle(VirtuosoOsgiOptions.location(jar));
            String problem = BundleDiagnostics.problem(broken);
            assertNotNull("an unresolvable bundle passed the check", problem);
            assertTrue(problem, problem.contains("INSTALLED"));
            assertTrue(problem, problem.contains("dev.virtuoso.no.such.pkg"));
        } finally {
            if (broken != null) {
                broken.uninstall();
            }
            Files.deleteIfExists(jar);
        }
    }

    private void assertAllActive(List<String> locations, String namePrefix) {
        List<String> problems = new ArrayList<>();
        for (String location : locations) {
            Bundle bundle = context().getBundle(location);
            if (bundle == null) {
                problems.add(location + " was not installed");
                continue;
            }
            String name = bundle.getSymbolicName();
            if (name == null || !name.startsWith(namePrefix)) {
                problems.add(location + " has Bundle-SymbolicName " + name
                        + ", expected a bundle named " + namePrefix + "*");
                continue;
            }
            String problem = BundleDiagnostics.problem(bundle);
            if (problem != null) {
                problems.add(problem);
            }
        }
        assertTrue("bundles not running in " + VirtuosoOsgiOptions.expectedFramework() + ":\n  "
                + String.join("\n  ", problems), problems.isEmpty());
    }
}
