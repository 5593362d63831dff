package dev.virtuoso.features;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MavenCoordinatesTest {

    @Test
    void parsesAllForms() {
        MavenCoordinates c = MavenCoordinates.parse("mvn:org.apache.felix/org.apache.felix.scr/2.2.12");
        assertEquals("org.apache.felix:org.apache.felix.scr", c.key());
        assertEquals("org/apache/felix/org.apache.felix.scr/2.2.12/org.apache.felix.scr-2.2.12.jar",
                c.repositoryPath());
        MavenCoordinates x = MavenCoordinates.parse("mvn:dev.virtuoso/virtuoso-features/1.0/xml/features");
        assertEquals("virtuoso-features-1.0-features.xml", x.fileName());
        assertEquals("mvn:dev.virtuoso/virtuoso-features/1.0/xml/features", x.toUrl());
        assertEquals("mvn:g/a/1", MavenCoordinates.parse("mvn:g/a/1/jar").toUrl());
    }

    @Test
    void rejectsWhatCannotBeResolvedExactly() {
        for (String bad : new String[] {"file:/x.jar", "mvn:g/a", "mvn:g//1", "mvn:g/a/[1,2)", "mvn:g/a/LATEST",
                "mvn:http://repo!g/a/1", "mvn:g/a/1/jar/c/extra"}) {
            assertThrows(IllegalArgumentException.class, () -> MavenCoordinates.parse(bad), bad);
        }
    }
}
