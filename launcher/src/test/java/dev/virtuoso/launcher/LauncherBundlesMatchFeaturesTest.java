package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * The launcher's staged bundles (its POM's provided dependencies, copied by maven-dependency-plugin)
 * are exactly the bundles the features descriptor names: the descriptor Karaf users install and
 * the set the launcher boots cannot drift apart.
 */
class LauncherBundlesMatchFeaturesTest {

    @Test
    void stagedSetEqualsTheFeaturesBundles() throws Exception {
        Features features = Features.load();
        Set<String> named = new TreeSet<>();
        for (FeatureBundle b : features.bundlesFor(features.names())) {
            named.add(StagedBundles.fileName(b.location()));
        }
        assertFalse(named.isEmpty(), "the descriptor names bundles");
        Set<String> staged = new StagedBundles(Main.bundlesDir()).files();
        Set<String> onlyNamed = new TreeSet<>(named);
        onlyNamed.removeAll(staged);
        Set<String> onlyStaged = new TreeSet<>(staged);
        onlyStaged.removeAll(named);
        assertEquals(Set.of(), onlyNamed, "named by features.xml but not a provided dependency of launcher/pom.xml");
        assertEquals(Set.of(), onlyStaged, "a provided dependency of launcher/pom.xml that features.xml does not name");
    }
}
