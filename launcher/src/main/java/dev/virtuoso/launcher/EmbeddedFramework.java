package dev.virtuoso.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Stream;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * An OSGi framework (Apache Felix, found through {@link FrameworkFactory}) embedded in the
 * launcher's JVM, with a private bundle cache deleted on {@link #close()}. Not thread-safe: one
 * owner (the launcher's main thread) installs and closes; a shutdown hook may close concurrently.
 */
final class EmbeddedFramework implements AutoCloseable {

    private static final long STOP_TIMEOUT_MILLIS = 10_000;

    private final Framework framework;
    private final Path storage;
    private final List<String> skipped = new ArrayList<>();
    private boolean closed;

    private EmbeddedFramework(Framework framework, Path storage) {
        this.framework = framework;
        this.storage = storage;
    }

    /**
     * Creates and starts a framework.
     *
     * @param properties framework properties in addition to the launcher's defaults
     * @param verbose whether the framework logs warnings and infos (else errors only)
     * @return the started framework
     * @throws IOException if no framework implementation is on the class path or it fails to start
     */
    static EmbeddedFramework start(Map<String, String> properties, boolean verbose) throws IOException {
        Path storage = Files.createTempDirectory("virtuoso-osgi-");
        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put("felix.log.level", verbose ? "3" : "1");
        config.putAll(properties);
        Iterator<FrameworkFactory> factories = ServiceLoader.load(FrameworkFactory.class).iterator();
        if (!factories.hasNext()) {
            deleteTree(storage);
            throw new IOException("no OSGi framework on the class path (launcher/target/lib is incomplete)");
        }
        Framework fw = factories.next().newFramework(config);
        try {
            fw.start();
        } catch (BundleException e) {
            deleteTree(storage);
            throw new IOException("the OSGi framework did not start: " + e.getMessage(), e);
        }
        return new EmbeddedFramework(fw, storage);
    }

    /** @return the system bundle's context */
    BundleContext context() {
        return framework.getBundleContext();
    }

    /**
     * Installs bundles in order, then starts those marked to start, in the same order. Fragments are
     * installed, not started.
     *
     * @param bundles bundles of the features, dependencies first
     * @param staged where their jars are
     * @return the installed bundles
     * @throws IOException listing every bundle that is missing, failed to install or to start
     */
    List<Bundle> installAndStart(List<FeatureBundle> bundles, StagedBundles staged) throws IOException {
        return installAndStart(bundles, Set.of(), staged, b -> { });
    }

    /**
     * As {@link #installAndStart(List, StagedBundles)}, calling {@code started} after each bundle
     * started (before the next one starts). A bundle that needs an execution environment (osgi.ee)
     * this JVM does not provide is uninstalled: if its location is in {@code optional} it is left
     * out ({@link #skipped()} says why), otherwise that need is the error.
     */
    List<Bundle> installAndStart(List<FeatureBundle> bundles, Set<String> optional, StagedBundles staged,
            BundleStarted started) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Bundle> installed = new ArrayList<>();
        List<FeatureBundle> toStart = new ArrayList<>();
        BundleContext ctx = context();
        for (FeatureBundle b : bundles) {
            Path jar = staged.jar(b.location());
            if (jar == null) {
                problems.add(b.location() + ": not in the launcher's bundle directory: the features name a bundle"
                        + " launcher/pom.xml does not declare (LauncherBundlesMatchFeaturesTest checks this)");
                continue;
            }
            try {
                // a file: location, so `update <id>` re-reads the staged jar (an mvn: location needs a
                // URL handler the embedded framework does not have)
                Bundle bundle = ctx.installBundle(jar.toUri().toString());
                String needs = ExecutionEnvironments.unmet(bundle, framework);
                if (needs != null) {
                    String name = bundle.getSymbolicName();
                    bundle.uninstall();
                    if (optional.contains(b.location())) {
                        skipped.add(name + " left out: it needs " + needs);
                    } else {
                        problems.add(name + " (" + b.location() + "): needs " + needs);
                    }
                    continue;
                }
                installed.add(bundle);
                if (b.start() && bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                    toStart.add(b);
                }
            } catch (BundleException e) {
                problems.add(b.location() + ": install failed: " + e.getMessage());
            }
        }
        for (FeatureBundle b : toStart) {
            Bundle bundle = ctx.getBundle(staged.jar(b.location()).toUri().toString());
            try {
                bundle.start();
                started.started(bundle);
            } catch (BundleException e) {
                problems.add(bundle.getSymbolicName() + " (" + b.location() + "): " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new IOException("the features did not start:\n  " + String.join("\n  ", problems));
        }
        return installed;
    }

    /** @return the optional bundles {@link #installAndStart} left out, each with why */
    List<String> skipped() {
        return List.copyOf(skipped);
    }

    /** Called after a bundle of {@link #installAndStart} started. */
    @FunctionalInterface
    interface BundleStarted {
        /** @param bundle the bundle that started @throws BundleException to report it as not started */
        void started(Bundle bundle) throws BundleException;
    }

    /**
     * Waits until the framework stops by itself (e.g. the shell's {@code exit}).
     *
     * @throws InterruptedException if interrupted
     */
    void awaitStop() throws InterruptedException {
        framework.waitForStop(0);
    }

    /** @return true once the framework is no longer active */
    boolean stopped() {
        return (framework.getState() & (Bundle.ACTIVE | Bundle.STARTING)) == 0;
    }

    /** Stops the framework (waiting at most 10 s) and deletes its cache. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopCommandBundles();
        try {
            framework.stop();
            FrameworkEvent e = framework.waitForStop(STOP_TIMEOUT_MILLIS);
            if (e.getType() == FrameworkEvent.WAIT_TIMEDOUT) {
                System.err.println("virtuoso: the OSGi framework did not stop within 10 s");
            }
        } catch (BundleException e) {
            System.err.println("virtuoso: stopping the OSGi framework failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deleteTree(storage);
    }

    /**
     * Stops the bundles that publish virtuoso commands before the framework stops the shell: a command
     * still running (a demo) then ends and says so, instead of the shell reporting the interrupt of
     * its command thread as an exception.
     */
    private void stopCommandBundles() {
        try {
            ServiceReference<?>[] refs = framework.getBundleContext() == null ? null
                    : framework.getBundleContext().getAllServiceReferences(null, "(osgi.command.scope=virtuoso)");
            if (refs == null) {
                return;
            }
            for (int i = refs.length - 1; i >= 0; i--) {
                Bundle b = refs[i].getBundle();
                if (b != null && b.getBundleId() != 0 && b.getState() == Bundle.ACTIVE) {
                    b.stop(Bundle.STOP_TRANSIENT);
                }
            }
        } catch (InvalidSyntaxException | BundleException | IllegalStateException e) {
            // the framework stop below stops them anyway
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp dir is harmless
        }
    }
}
