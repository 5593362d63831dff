package dev.virtuoso.itests.osgi;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.CoreOptions.systemTimeout;
import static org.ops4j.pax.exam.CoreOptions.workingDirectory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.ops4j.pax.exam.Option;

/**
 * Pax Exam options that provision the Virtuoso runtime: Felix SCR, ConfigAdmin and their
 * dependencies, then every project bundle, all as {@code file:} URLs into the copies the build
 * made under {@code target/osgi-bundles} (nothing is downloaded at test time).
 *
 * <p>Which project bundles are provisioned is decided by the module's pom: every
 * {@code dev.virtuoso} dependency is copied to {@code target/osgi-bundles/project}. The directory
 * and the framework under test come from system properties set by surefire; running a test outside
 * Maven without them fails fast with a message rather than testing nothing.
 *
 * <p>Stateless; used on the host (to build the configuration) and inside the framework (to list
 * the project bundles that must be active).
 */
public final class VirtuosoOsgiOptions {

    /** System property: directory with the {@code runtime}, {@code project} and {@code pax} bundle copies. */
    public static final String BUNDLES_DIR_PROPERTY = "virtuoso.itest.bundles";
    /** System property: {@code felix} or {@code equinox}, the framework surefire put on the class path. */
    public static final String FRAMEWORK_PROPERTY = "virtuoso.itest.framework";
    /** System property: where the framework keeps its storage for this run. */
    public static final String WORKDIR_PROPERTY = "virtuoso.itest.workdir";

    /** How long Pax Exam waits for the framework and its own services. */
    private static final long EXAM_TIMEOUT_MILLIS = 30_000;

    private VirtuosoOsgiOptions() {
    }

    /**
     * The standard configuration: Pax Exam's JUnit support, the OSGi runtime and every project
     * bundle, started.
     *
     * @return options for a {@code @Configuration} method
     */
    public static Option[] baseline() {
        return new Option[] {
            frameworkSetup(),
            runtime(),
            projectBundles(),
        };
    }

    /**
     * Working directory, clean caches, timeouts, logging level and Pax Exam's JUnit bundles.
     *
     * @return the composite option
     */
    public static Option frameworkSetup() {
        return composite(
                workingDirectory(requiredProperty(WORKDIR_PROPERTY)),
                cleanCaches(true),
                systemTimeout(EXAM_TIMEOUT_MILLIS),
                // pax-logging-api's fallback logger prints to stdout; keep it to real problems
                systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"),
                junitBundles());
    }

    /**
     * Felix SCR, Felix ConfigAdmin and the OSGi utility bundles they need.
     *
     * @return the composite option
     */
    public static Option runtime() {
        return provision(runtimeBundleJars());
    }

    /**
     * Every project bundle the pom lists.
     *
     * @return the composite option
     */
    public static Option projectBundles() {
        return provision(projectBundleJars());
    }

    /** @return the runtime bundle jars, sorted by file name */
    public static List<Path> runtimeBundleJars() {
        return jarsIn(bundlesDir().resolve("runtime"));
    }

    /** @return the project bundle jars, sorted by file name */
    public static List<Path> projectBundleJars() {
        return jarsIn(bundlesDir().resolve("project"));
    }

    /**
     * The bundle location a jar is installed under; lets tests find the bundle installed from it.
     *
     * @param jar a jar from {@link #projectBundleJars()} or {@link #runtimeBundleJars()}
     * @return its {@code file:} URL
     */
    public static String location(Path jar) {
        return jar.toUri().toString();
    }

    /** @return {@code felix} or {@code equinox} */
    public static String expectedFramework() {
        return requiredProperty(FRAMEWORK_PROPERTY);
    }

    private static Option provision(List<Path> jars) {
        return composite(jars.stream().map(jar -> bundle(location(jar)).start()).toArray(Option[]::new));
    }

    private static Path bundlesDir() {
        return Paths.get(requiredProperty(BUNDLES_DIR_PROPERTY));
    }

    private static List<Path> jarsIn(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no bundle directory " + dir
                    + "; run through Maven (mvn verify) so the dependency plugin copies the bundles");
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jar"))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name
                    + " is not set; these tests run through Maven (itests/osgi/pom.xml sets it)");
        }
        return value;
    }
}
