package dev.virtuoso.paxexam;

import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;

import java.util.List;

import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.cm.ConfigurationAdminOptions;

/**
 * Pax Exam option sets that provision Virtuoso in a test framework (Felix or Equinox, Pax Exam's
 * native or forked container). Every bundle is named by Maven coordinates ({@code mvn:} URLs,
 * resolved by pax-url-aether on the test's class path); this artifact's POM declares each of them
 * as a dependency, so Maven has fetched them before the test runs.
 *
 * <p>Typical configuration:
 *
 * <pre>{@code
 * @Configuration
 * public Option[] config() {
 *     return new Option[] {
 *         junitBundles(),
 *         VirtuosoOptions.osgiRuntime(),
 *         VirtuosoOptions.core(),
 *         VirtuosoOptions.softFabric(VirtuosoOptions.twoHostFabric(2, "rate=unlimited")),
 *         VirtuosoOptions.policies(),
 *     };
 * }
 * }</pre>
 *
 * <p>Stateless; host side only (nothing of this class runs inside the framework).
 */
public final class VirtuosoOptions {
    /** ConfigAdmin PID of the soft RNIC (the verbs-soft bundle's SoftVerbsComponent). */
    public static final String SOFT_PID = "dev.virtuoso.verbs.soft";

    private VirtuosoOptions() {
    }

    /**
     * Declarative Services (Felix SCR), Configuration Admin (Felix) and the OSGi bundles SCR needs
     * (DS API, {@code org.osgi.util.function}, {@code org.osgi.util.promise}). Leave it out where the
     * framework already has SCR and ConfigAdmin.
     *
     * @return the option set
     */
    public static Option osgiRuntime() {
        return bundles(BundleList.OSGI_RUNTIME);
    }

    /**
     * The core: application API and SPIs, decomposer, reassembler, path monitor and QP manager,
     * which publishes the {@code MultipathConnector} service once a verbs provider is bound.
     *
     * @return the option set
     */
    public static Option core() {
        return bundles(BundleList.CORE);
    }

    /**
     * The soft RNIC ({@code provider=soft}) with its default configuration: one device
     * {@code soft0} on the UDP wire at 127.0.0.1:4791.
     *
     * @return the option set
     */
    public static Option softProvider() {
        return bundles(BundleList.SOFT_PROVIDER);
    }

    /**
     * The soft RNIC configured, through ConfigAdmin before it starts, as an in-process fabric (no
     * sockets, no root): each host of the spec becomes a device. See {@link #twoHostFabric}.
     *
     * @param fabricSpec the fabric, e.g. {@code "a=10.0.1.1 b=10.0.2.1; link 10.0.1.1-10.0.2.1 rate=1g"}
     * @return the option set
     */
    public static Option softFabric(String fabricSpec) {
        return composite(
                ConfigurationAdminOptions.newConfiguration(SOFT_PID)
                        .put("wire", "fabric")
                        .put("fabricSpec", fabricSpec)
                        .asOption(),
                softProvider());
    }

    /**
     * Every load-balancing and congestion-avoidance policy bundle and the ConfigAdmin policy
     * binding.
     *
     * @return the option set
     */
    public static Option policies() {
        return bundles(BundleList.POLICIES);
    }

    /**
     * The Gogo runtime and the {@code virtuoso:*} commands (scope {@code virtuoso}).
     *
     * @return the option set
     */
    public static Option commands() {
        return bundles(BundleList.COMMANDS);
    }

    /**
     * Everything for data on the in-process fabric: {@link #osgiRuntime()}, {@link #core()},
     * {@link #softFabric(String)} and {@link #policies()}.
     *
     * @param fabricSpec the fabric
     * @return the option set
     */
    public static Option virtuoso(String fabricSpec) {
        return composite(osgiRuntime(), core(), softFabric(fabricSpec), policies());
    }

    /**
     * A fabric spec of two hosts, {@code a} with vNICs 10.0.1.1..n and {@code b} with
     * 10.0.2.1..n, and one link per path: path i joins 10.0.1.i and 10.0.2.i.
     *
     * @param paths vNICs per host (1..64)
     * @param linkSpec properties of every link, e.g. {@code "rate=1g delay=50us"} or {@code "rate=unlimited"}
     * @return the spec for {@link #softFabric(String)}
     */
    public static String twoHostFabric(int paths, String linkSpec) {
        if (paths < 1 || paths > 64) {
            throw new IllegalArgumentException("paths must be 1..64: " + paths);
        }
        StringBuilder a = new StringBuilder("a=");
        StringBuilder b = new StringBuilder("b=");
        StringBuilder links = new StringBuilder();
        for (int i = 1; i <= paths; i++) {
            a.append(i > 1 ? "," : "").append("10.0.1.").append(i);
            b.append(i > 1 ? "," : "").append("10.0.2.").append(i);
            links.append("; link 10.0.1.").append(i).append("-10.0.2.").append(i).append(' ').append(linkSpec);
        }
        return a + " " + b + links;
    }

    /** @return the Virtuoso version these options provision */
    public static String virtuosoVersion() {
        return BundleList.virtuosoVersion();
    }

    /**
     * The {@code mvn:} URLs of an option set, e.g. to find the installed bundles by location.
     *
     * @param set {@code osgi-runtime}, {@code core}, {@code soft-provider}, {@code policies} or
     *     {@code commands}
     * @return the URLs in install order
     */
    public static List<String> bundleUrls(String set) {
        return BundleList.urls(set);
    }

    private static Option bundles(String set) {
        return composite(BundleList.coordinates(set).stream()
                .map(c -> mavenBundle(c[0], c[1], c[2]).start())
                .toArray(Option[]::new));
    }
}
