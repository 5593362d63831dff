package dev.virtuoso.itests.osgi;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.CoreOptions.systemTimeout;
import static org.ops4j.pax.exam.CoreOptions.workingDirectory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.ops4j.pax.exam.Option;

import dev.virtuoso.paxexam.VirtuosoOptions;

/**
 * Pax Exam options of this module's tests, built on the project's published helper
 * {@link VirtuosoOptions} (artifact {@code dev.virtuoso:virtuoso-pax-exam}): its OSGi runtime
 * (SCR, ConfigAdmin and what they need), core, soft provider, policies and commands, plus the
 * Gogo runtime's bundles and the DiSNI provider, which this module checks too. Bundles are
 * {@code mvn:} URLs that pax-url-aether resolves from {@code target/maven-repo}, where the build
 * copied this module's dependencies (nothing is downloaded at test time).
 *
 * <p>The host side ({@link #baseline()}) also hands the bundle locations to the framework side as
 * system properties (same JVM), so the in-framework checks know which bundles must be active
 * without loading the helper, which is not in the framework.
 */
public final class VirtuosoOsgiOptions {

    /** System property: directory for files the tests make (e.g. the libdisni fragment). */
    public static final String BUNDLES_DIR_PROPERTY = "virtuoso.itest.bundles";
    /** System property: {@code felix} or {@code equinox}, the framework surefire put on the class path. */
    public static final String FRAMEWORK_PROPERTY = "virtuoso.itest.framework";
    /** System property: where the framework keeps its storage for this run. */
    public static final String WORKDIR_PROPERTY = "virtuoso.itest.workdir";
    /** System property set for the framework side: the runtime bundles' locations, comma-separated. */
    static final String RUNTIME_LOCATIONS_PROPERTY = "virtuoso.itest.runtimeBundles";
    /** System property set for the framework side: the project bundles' locations, comma-separated. */
    static final String PROJECT_LOCATIONS_PROPERTY = "virtuoso.itest.projectBundles";

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
                systemProperty(RUNTIME_LOCATIONS_PROPERTY).value(String.join(",", runtimeLocationsOnHost())),
                systemProperty(PROJECT_LOCATIONS_PROPERTY).value(String.join(",", projectLocationsOnHost())),
                junitBundles());
    }

    /**
     * {@link VirtuosoOptions#osgiRuntime()} and the Gogo runtime.
     *
     * @return the composite option
     */
    public static Option runtime() {
        return provision(runtimeLocationsOnHost());
    }

    /**
     * {@link VirtuosoOptions#core()}, {@link VirtuosoOptions#softProvider()},
     * {@link VirtuosoOptions#policies()}, the commands bundle and the DiSNI provider.
     *
     * @return the composite option
     */
    public static Option projectBundles() {
        return provision(projectLocationsOnHost());
    }

    /** @return the runtime bundles' locations; inside the framework, from the system property */
    public static List<String> runtimeBundleLocations() {
        return Arrays.asList(requiredProperty(RUNTIME_LOCATIONS_PROPERTY).split(","));
    }

    /** @return the project bundles' locations; inside the framework, from the system property */
    public static List<String> projectBundleLocations() {
        return Arrays.asList(requiredProperty(PROJECT_LOCATIONS_PROPERTY).split(","));
    }

    /**
     * The bundle location a file is installed under.
     *
     * @param jar a bundle file
     * @return its {@code file:} URL
     */
    public static String location(Path jar) {
        return jar.toUri().toString();
    }

    /** @return {@code felix} or {@code equinox} */
    public static String expectedFramework() {
        return requiredProperty(FRAMEWORK_PROPERTY);
    }

    private static List<String> runtimeLocationsOnHost() {
        List<String> out = new ArrayList<>(VirtuosoOptions.bundleUrls("osgi-runtime"));
        for (String set : new String[] {"core", "soft-provider", "policies", "commands"}) {
            for (String url : VirtuosoOptions.bundleUrls(set)) {
                if (!url.startsWith("mvn:dev.virtuoso/")) {
                    out.add(url); // third-party bundles of the sets: Agrona (core), the Gogo runtime (commands)
                }
            }
        }
        return out;
    }

    /** @return the project bundles' locations, on the host (for a configuration that leaves some out) */
    static List<String> projectLocationsOnHost() {
        List<String> out = new ArrayList<>();
        for (String set : new String[] {"core", "soft-provider", "policies", "commands"}) {
            for (String url : VirtuosoOptions.bundleUrls(set)) {
                if (url.startsWith("mvn:dev.virtuoso/")) {
                    out.add(url);
                }
            }
        }
        out.add("mvn:dev.virtuoso/virtuoso-verbs-disni/" + VirtuosoOptions.virtuosoVersion());
        return out;
    }

    private static Option provision(List<String> locations) {
        return composite(locations.stream().map(url -> bundle(url).start()).toArray(Option[]::new));
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
