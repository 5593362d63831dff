package dev.virtuoso.features;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeaturesCheckTest {

    @TempDir
    Path dir;

    /** A reactor with one bundle module m1 (1.0), one plain module m2 and managed lib 2.0. */
    private ArtifactCatalog catalog() throws Exception {
        Files.writeString(dir.resolve("pom.xml"), """
                <project><groupId>g</groupId><artifactId>root</artifactId><version>1.0</version>
                  <properties><lib.version>2.0</lib.version></properties>
                  <modules><module>m1</module><module>m2</module></modules>
                  <dependencyManagement><dependencies>
                    <dependency><groupId>o</groupId><artifactId>lib</artifactId><version>${lib.version}</version></dependency>
                  </dependencies></dependencyManagement>
                </project>""");
        for (String m : List.of("m1", "m2")) {
            Files.createDirectories(dir.resolve(m));
            Files.writeString(dir.resolve(m).resolve("pom.xml"), "<project><parent><groupId>g</groupId>"
                    + "<artifactId>root</artifactId><version>1.0</version></parent><artifactId>" + m
                    + "</artifactId></project>");
        }
        Files.writeString(dir.resolve("m1").resolve("bnd.bnd"), "Bundle-SymbolicName: m1\n");
        Files.writeString(dir.resolve("extra.xml"), """
                <project><artifactId>x</artifactId><properties><own.version>3.1</own.version></properties>
                  <dependencyManagement><dependencies>
                    <dependency><groupId>o</groupId><artifactId>own</artifactId><version>${own.version}</version></dependency>
                  </dependencies></dependencyManagement></project>""");
        return ArtifactCatalog.of(dir.resolve("pom.xml"), List.of(dir.resolve("extra.xml")));
    }

    private static FeatureRepository repo(String features) throws Exception {
        String xml = "<features name='r' xmlns='" + FeaturesReader.NAMESPACE + "'>" + features + "</features>";
        return new FeaturesReader().read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "t");
    }

    @Test
    void acceptsModulesAndManagedDependenciesAtTheirVersions() throws Exception {
        List<String> p = FeaturesCheck.check(repo("<feature name='f'><bundle>mvn:g/m1/1.0</bundle>"
                + "<bundle>mvn:o/lib/2.0</bundle><bundle>mvn:o/own/3.1</bundle></feature>"), catalog());
        assertEquals(List.of(), p);
    }

    @Test
    void reportsWrongVersionsUnknownArtifactsAndMissingBundleModules() throws Exception {
        List<String> p = FeaturesCheck.check(repo("""
                <feature name='f'>
                  <bundle>mvn:o/lib/2.1</bundle><bundle>mvn:o/nope/1</bundle><bundle>mvn:g/m2/1.0</bundle>
                  <bundle>file:/tmp/x.jar</bundle><bundle>mvn:g/m2/1.0</bundle>
                </feature>
                <feature name='f'><feature>ghost</feature></feature>"""), catalog());
        String all = String.join("\n", p);
        assertTrue(all.contains("mvn:o/lib/2.1 has version 2.1, the build manages 2.0"), all);
        assertTrue(all.contains("o:nope is neither a module of this reactor nor a managed dependency"), all);
        assertTrue(all.contains("module g:m2 is not a bundle module"), all);
        assertTrue(all.contains("not a mvn: URL: file:/tmp/x.jar"), all);
        assertTrue(all.contains("lists mvn:g/m2/1.0 twice"), all);
        assertTrue(all.contains("feature f 0.0.0 is defined twice"), all);
        assertTrue(all.contains("unknown feature 'ghost'"), all);
        assertTrue(all.contains("bundle module g:m1"), all);
    }

    /** The descriptor this module ships, as filtered by the build, against the real reactor. */
    @Test
    void shippedDescriptorPassesTheCheck() throws Exception {
        FeatureRepository repo;
        try (InputStream in = getClass().getResourceAsStream("/dev/virtuoso/features/features.xml")) {
            repo = new FeaturesReader().read(in, "features.xml");
        }
        Path root = Path.of("..", "pom.xml").toAbsolutePath().normalize();
        List<String> p = FeaturesCheck.check(repo, ArtifactCatalog.of(root, List.of(Path.of("pom.xml"))));
        assertEquals(List.of(), p);
        for (String f : List.of("virtuoso-core", "virtuoso-soft", "virtuoso-disni", "virtuoso-policies",
                "virtuoso-shell")) {
            assertTrue(repo.feature(f).isPresent(), f);
        }
        List<String> shell = repo.bundlesFor(List.of("virtuoso-shell")).stream().map(BundleEntry::location).toList();
        assertTrue(shell.stream().anyMatch(l -> l.contains("org.apache.felix.scr")), shell::toString);
        assertTrue(shell.stream().anyMatch(l -> l.contains("org.apache.felix.gogo.jline")), shell::toString);
    }
}
