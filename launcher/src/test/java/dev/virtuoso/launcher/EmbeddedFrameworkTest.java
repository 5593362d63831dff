package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

/**
 * Boots the embedded framework with the demo's features from the bundles the build staged
 * (target/bundles) and checks that every bundle is ACTIVE and the commands are registered; then
 * runs {@code virtuoso paths} end to end through {@link Main}.
 */
class EmbeddedFrameworkTest {

    @Test
    void demoFeaturesStartAndPublishTheCommands() throws Exception {
        StagedBundles staged = new StagedBundles(Main.bundlesDir());
        List<FeatureBundle> bundles = Features.load().bundlesFor(Subcommand.DEMO.features());
        try (EmbeddedFramework fw = EmbeddedFramework.start(Map.of(), false)) {
            List<Bundle> installed = fw.installAndStart(bundles, staged);
            assertEquals(bundles.size(), installed.size());
            List<String> notActive = new ArrayList<>();
            for (Bundle b : installed) {
                boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
                if (b.getState() != (fragment ? Bundle.RESOLVED : Bundle.ACTIVE)) {
                    notActive.add(b.getSymbolicName() + " state " + b.getState());
                }
            }
            assertTrue(notActive.isEmpty(), "not active: " + notActive);
            for (String function : List.of("demo", "bench", "vnics", "connections", "policy", "path", "testbed", "link", "secret",
                    "policies", "loadbalancer", "congestionavoidance", "monitor", "probe", "chunksizes")) {
                long deadline = System.currentTimeMillis() + 10_000;
                ServiceReference<?>[] refs = null;
                while (refs == null && System.currentTimeMillis() < deadline) {
                    refs = fw.context().getAllServiceReferences(null,
                            "(&(osgi.command.scope=virtuoso)(osgi.command.function=" + function + "))");
                    if (refs == null) {
                        Thread.sleep(20);
                    }
                }
                assertNotNull(refs, "virtuoso:" + function + " is registered");
            }
            for (ServiceReference<?> ref : fw.context().getAllServiceReferences(null, "(osgi.command.scope=virtuoso)")) {
                Object functions = ref.getProperty("osgi.command.function");
                for (String f : functions instanceof String[] a ? a : new String[] {String.valueOf(functions)}) {
                    assertTrue(Main.SHELL_BANNER.contains(f), "the shell banner lists virtuoso:" + f);
                }
            }
        }
    }

    @Test
    void aPolicyBundleTheLauncherInstalledUpdatesInPlace() throws Exception {
        StagedBundles staged = new StagedBundles(Main.bundlesDir());
        List<FeatureBundle> bundles = Features.load().bundlesFor(Subcommand.DEMO.features());
        try (EmbeddedFramework fw = EmbeddedFramework.start(Map.of(), false)) {
            Bundle single = fw.installAndStart(bundles, staged).stream()
                    .filter(b -> "dev.virtuoso.policy.lb.single".equals(b.getSymbolicName())).findFirst().orElseThrow();
            assertTrue(single.getLocation().startsWith("file:"), single.getLocation());
            long modified = single.getLastModified();
            single.update();
            assertEquals(Bundle.ACTIVE, single.getState());
            assertTrue(single.getLastModified() >= modified, "updated from the staged jar");
        }
    }

    @Test
    void exitStopsTheFrameworkWithItsStatus() throws Exception {
        try (EmbeddedFramework fw = EmbeddedFramework.start(Map.of(), false)) {
            ExitCommand exit = new ExitCommand(fw.context());
            exit.register();
            exit.exit(3);
            long deadline = System.currentTimeMillis() + 10_000;
            while (!fw.stopped() && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(fw.stopped(), "exit stopped the framework");
            assertEquals(3, exit.status());
            fw.close(); // the shell's exit path: closing a framework that already stopped must not throw
        }
    }

    @Test
    void pathsRunsEndToEnd() {
        LauncherRuns.InProcess r = LauncherRuns.run("paths");
        assertEquals(Main.OK, r.code(), "stderr: " + r.err());
        assertTrue(r.out().contains("provider") && r.out().contains("vNIC address"), r.out());
        assertFalse(r.err().contains("\tat "), "no stack trace");
    }
}
