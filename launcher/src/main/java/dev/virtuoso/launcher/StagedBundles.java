package dev.virtuoso.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The launcher's bundle directory, filled at build time by maven-dependency-plugin
 * ({@code copy-dependencies} of the launcher POM's {@code provided} dependencies), which names each
 * jar {@code artifactId-version.jar}. A feature's {@code mvn:groupId/artifactId/version} location
 * maps to that file name. Immutable.
 */
final class StagedBundles {

    private final Path dir;

    /** @param dir the directory */
    StagedBundles(Path dir) {
        this.dir = dir;
    }

    /**
     * @param location a {@code mvn:groupId/artifactId/version} location
     * @return the jar's file name in the directory
     * @throws IllegalArgumentException if the location is not of that form
     */
    static String fileName(String location) {
        String[] p = location.startsWith("mvn:") ? location.substring(4).split("/") : new String[0];
        if (p.length != 3 || Stream.of(p).anyMatch(s -> s.isEmpty() || s.contains("\\") || s.contains(".."))) {
            throw new IllegalArgumentException("not a mvn:groupId/artifactId/version location: " + location);
        }
        return p[1] + "-" + p[2] + ".jar";
    }

    /**
     * @param location a feature's bundle location
     * @return the staged jar, or {@code null} if it is not staged or not a {@code mvn:} location
     */
    Path jar(String location) {
        Path p;
        try {
            p = dir.resolve(fileName(location));
        } catch (IllegalArgumentException e) {
            return null;
        }
        return Files.isRegularFile(p) ? p : null;
    }

    /**
     * @return the file names of the staged jars
     * @throws IOException if the directory cannot be listed (e.g. the launcher is not built)
     */
    Set<String> files() throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException("no bundle directory " + dir + " (build first: mvn -DskipTests install)");
        }
        try (Stream<Path> s = Files.list(dir)) {
            Set<String> out = new TreeSet<>();
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).forEach(out::add);
            return out;
        }
    }
}
