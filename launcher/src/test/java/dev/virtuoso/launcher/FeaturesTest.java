package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class FeaturesTest {

    private static Features parse(String xml) throws IOException {
        return Features.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static final String XML = """
            <features name="t" xmlns="http://karaf.apache.org/xmlns/features/v1.6.0">
              <feature name="base" version="1"><bundle>mvn:g/a/1</bundle></feature>
              <feature name="top" version="1">
                <feature version="1">base</feature>
                <bundle start="false">mvn:g/b/1</bundle>
                <bundle>mvn:g/a/1</bundle>
              </feature>
              <feature name="loop" version="1"><feature>loop</feature><bundle>mvn:g/c/1</bundle></feature>
            </features>
            """;

    @Test
    void referencedFeaturesFirstEachBundleOnce() throws Exception {
        Features f = parse(XML);
        assertEquals(List.of("base", "loop", "top"), f.names());
        assertEquals(List.of(new FeatureBundle("mvn:g/a/1", true), new FeatureBundle("mvn:g/b/1", false)),
                f.bundlesFor(List.of("top")));
        assertEquals(List.of(new FeatureBundle("mvn:g/c/1", true)), f.bundlesFor(List.of("loop")));
    }

    @Test
    void unknownFeatureOrBadXmlIsAnError() throws Exception {
        IOException e = assertThrows(IOException.class, () -> parse(XML).bundlesFor(List.of("nope")));
        assertTrue(e.getMessage().contains("no feature named nope"), e.getMessage());
        assertThrows(IOException.class, () -> parse("<features"));
        assertThrows(IOException.class, () -> parse("<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>"));
    }

    @Test
    void stagedFileNameFollowsTheDependencyPlugin() {
        assertEquals("jline-3.13.2.jar", StagedBundles.fileName("mvn:org.jline/jline/3.13.2"));
        assertEquals("virtuoso-api-0.1.0-SNAPSHOT.jar", StagedBundles.fileName("mvn:dev.virtuoso/virtuoso-api/0.1.0-SNAPSHOT"));
        for (String bad : List.of("file:/x.jar", "mvn:g/a", "mvn:g/a/1/jar", "mvn:g/../1", "mvn:g//1")) {
            assertThrows(IllegalArgumentException.class, () -> StagedBundles.fileName(bad), bad);
            assertNull(new StagedBundles(Path.of(".")).jar(bad), bad);
        }
    }
}
