package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./virtuoso} script runs the launcher with the java {@code VIRTUOSO_JAVA}
 * names (else the PATH's), always with {@code --enable-native-access=ALL-UNNAMED} (the libibverbs
 * provider on Java 22+), and says so when that java is missing. A stand-in java prints what it was
 * given; {@code VIRTUOSO_NO_BUILD=1} keeps the script from building.
 */
class VirtuosoScriptTest {
    private static final Path SCRIPT = Path.of("..", "virtuoso");

    private static LauncherRuns.Exited run(Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        Map<String, String> all = new HashMap<>(env);
        all.put("VIRTUOSO_NO_BUILD", "1");
        return LauncherRuns.exec(cmd, all, 60);
    }

    @Test
    void theJavaVirtuosoJavaNamesRunsTheLauncherWithNativeAccess(@TempDir Path dir) throws Exception {
        Path java = dir.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"stand-in java: $*\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        LauncherRuns.Exited r = run(Map.of("VIRTUOSO_JAVA", java.toString()), "paths");
        assertEquals(0, r.code(), r.output());
        assertTrue(r.output().matches("(?s)stand-in java: --enable-native-access=ALL-UNNAMED -Djava\\.awt\\.headless=true"
                + " -Dvirtuoso\\.home=\\S+ -jar \\S+virtuoso-launcher\\.jar paths\\s*"), r.output());
    }

    @Test
    void aMissingJavaIsNamed() throws Exception {
        LauncherRuns.Exited r = run(Map.of("VIRTUOSO_JAVA", "/nonexistent/bin/java"), "paths");
        assertEquals(1, r.code(), r.output());
        assertTrue(r.output().contains("'/nonexistent/bin/java' is not installed")
                && r.output().contains("set VIRTUOSO_JAVA to a java"), r.output());
    }
}
