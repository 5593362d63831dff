package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

/**
 * A bundle whose execution environment (osgi.ee) the JVM does not provide: the libibverbs
 * provider, built for Java 22. Left out with a reason when optional (the launcher's subcommands
 * add virtuoso-ibv that way), an error naming the Java it needs when asked for; on Java 22+
 * installed and started like any other.
 */
class OptionalFeaturesTest {
    private static final String IBV = "mvn:dev.virtuoso/virtuoso-verbs-ibv/";

    @Test
    void theIbvProviderIsOptionalForTheSubcommandsThatMayUseARealRnic() {
        for (Subcommand s : List.of(Subcommand.BENCH, Subcommand.PATHS, Subcommand.SHELL)) {
            assertEquals(List.of("virtuoso-ibv"), s.optionalFeatures(), s.cliName());
        }
        for (Subcommand s : List.of(Subcommand.DEMO, Subcommand.SCALE)) {
            assertEquals(List.of(), s.optionalFeatures(), s.cliName() + " runs on the soft RNIC only");
        }
    }

    @Test
    void anOptionalBundleThisJvmCannotRunIsLeftOutWithItsNeed() throws Exception {
        List<FeatureBundle> bundles = Features.load().bundlesFor(List.of("virtuoso-soft", "virtuoso-ibv"));
        Set<String> optional = bundles.stream().map(FeatureBundle::location).filter(l -> l.startsWith(IBV))
                .collect(Collectors.toSet());
        assertEquals(1, optional.size(), "the feature names the ibv bundle: " + bundles);
        try (EmbeddedFramework fw = EmbeddedFramework.start(Map.of(), false)) {
            List<Bundle> installed = fw.installAndStart(bundles, optional, new StagedBundles(Main.bundlesDir()), b -> { });
            boolean ibvInstalled = installed.stream().anyMatch(b -> "dev.virtuoso.verbs.ibv".equals(b.getSymbolicName()));
            if (Runtime.version().feature() >= 22) {
                assertTrue(ibvInstalled, "Java 22+ runs the ibv bundle");
                assertEquals(List.of(), fw.skipped());
                Bundle ibv = installed.stream().filter(b -> "dev.virtuoso.verbs.ibv".equals(b.getSymbolicName()))
                        .findFirst().orElseThrow();
                assertEquals(Bundle.ACTIVE, ibv.getState());
            } else {
                assertTrue(!ibvInstalled, "left out on Java " + Runtime.version().feature());
                assertEquals(List.of("dev.virtuoso.verbs.ibv left out: it needs Java 22 or newer (this JVM is Java "
                        + Runtime.version().feature() + ")"), fw.skipped());
                assertTrue(fw.context().getBundles().length == installed.size() + 1, "uninstalled, not left resolving");
            }
            assertEquals(bundles.size() - (ibvInstalled ? 0 : 1), installed.size());
            for (Bundle b : installed) {
                assertEquals(Bundle.ACTIVE, b.getState(), b.getSymbolicName());
            }
        }
    }

    @Test
    void aBundleAskedForThatThisJvmCannotRunIsAnErrorNamingTheJavaItNeeds() throws Exception {
        assumeTrue(Runtime.version().feature() < 22, "this JVM (Java " + Runtime.version().feature()
                + ") runs the ibv bundle: nothing it cannot run to refuse");
        List<FeatureBundle> bundles = Features.load().bundlesFor(List.of("virtuoso-soft", "virtuoso-ibv"));
        try (EmbeddedFramework fw = EmbeddedFramework.start(Map.of(), false)) {
            IOException e = assertThrows(IOException.class,
                    () -> fw.installAndStart(bundles, Set.of(), new StagedBundles(Main.bundlesDir()), b -> { }));
            assertTrue(e.getMessage().contains("dev.virtuoso.verbs.ibv (" + IBV)
                    && e.getMessage().contains("needs Java 22 or newer (this JVM is Java " + Runtime.version().feature()
                            + ")"), e.getMessage());
        }
    }
}
