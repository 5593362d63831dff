package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleIndexTest {

    @TempDir
    Path dir;

    @Test
    void roundTripsAndFindsOnlyExistingJars() throws Exception {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("mvn:g/a/1", "a-1.jar");
        m.put("mvn:g/b/1", "b-1.jar");
        Files.writeString(dir.resolve("a-1.jar"), "x");
        BundleIndex.write(dir, m);
        BundleIndex idx = BundleIndex.read(dir);
        assertEquals(m, idx.entries());
        assertEquals(dir.resolve("a-1.jar"), idx.jar("mvn:g/a/1"));
        assertNull(idx.jar("mvn:g/b/1"), "listed but missing");
        assertNull(idx.jar("mvn:g/c/1"), "not listed");
    }

    @Test
    void rejectsMissingOrMalformedIndexes() throws Exception {
        assertThrows(IOException.class, () -> BundleIndex.read(dir));
        Files.writeString(dir.resolve(BundleIndex.FILE_NAME), "mvn:g/a/1\t../../etc/passwd\n");
        assertThrows(IOException.class, () -> BundleIndex.read(dir));
        Files.writeString(dir.resolve(BundleIndex.FILE_NAME), "just-one-column\n");
        assertThrows(IOException.class, () -> BundleIndex.read(dir));
    }
}
