package dev.virtuoso.paxexam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Every bundle an option set names is a resolved dependency of this artifact, with the same
 * version, so that a user's build has fetched it before Pax Exam asks for it by mvn: URL.
 */
class BundleListTest {

    @Test
    void everyNamedBundleIsADeclaredDependencyWithTheSameVersion() throws Exception {
        String file = System.getProperty("virtuoso.paxexam.dependencies");
        assertTrue(file != null, "run through Maven: the pom writes the resolved dependency list");
        String resolved = Files.readString(Path.of(file));
        List<String> missing = new ArrayList<>();
        int named = 0;
        for (String set : BundleList.SETS) {
            for (String[] c : BundleList.coordinates(set)) {
                named++;
                if (!resolved.contains(c[0] + ":" + c[1] + ":jar:" + c[2] + ":")) {
                    missing.add(set + ": " + String.join("/", c));
                }
            }
        }
        assertEquals(5 + 6 + 1 + 7 + 2, named, "bundles named by the option sets");
        assertTrue(missing.isEmpty(), "named by bundles.properties but not a dependency of the pom: " + missing
                + "\nresolved:\n" + resolved);
    }

    @Test
    void urlsAreMavenCoordinatesOfTheBuiltVersion() {
        String version = VirtuosoOptions.virtuosoVersion();
        assertFalse(version.contains("${"), "bundles.properties was not filtered: " + version);
        assertTrue(VirtuosoOptions.bundleUrls("core").contains("mvn:dev.virtuoso/virtuoso-qpmanager/" + version));
        assertThrows(IllegalArgumentException.class, () -> VirtuosoOptions.bundleUrls("nonsense"));
    }

    @Test
    void twoHostFabricHasOneLinkPerPath() {
        assertEquals("a=10.0.1.1,10.0.1.2 b=10.0.2.1,10.0.2.2; link 10.0.1.1-10.0.2.1 rate=1g;"
                + " link 10.0.1.2-10.0.2.2 rate=1g", VirtuosoOptions.twoHostFabric(2, "rate=1g"));
        assertThrows(IllegalArgumentException.class, () -> VirtuosoOptions.twoHostFabric(0, "rate=1g"));
    }
}
