package dev.virtuoso.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The index of a staged bundle directory ({@value #FILE_NAME}): one line per bundle, its feature
 * location ({@code mvn:} URL), a tab, and the jar's file name in the directory. Written by
 * {@link BundleStager} at build time, read by the launcher at run time. Immutable.
 */
public final class BundleIndex {

    /** File name of the index inside the bundle directory. */
    public static final String FILE_NAME = "index.tsv";

    private final Path dir;
    private final Map<String, String> files;

    private BundleIndex(Path dir, Map<String, String> files) {
        this.dir = dir;
        this.files = Map.copyOf(files);
    }

    /**
     * Reads the index of a staged directory.
     *
     * @param dir the bundle directory
     * @return its index
     * @throws IOException if the index is missing or malformed
     */
    public static BundleIndex read(Path dir) throws IOException {
        Path index = dir.resolve(FILE_NAME);
        if (!Files.isRegularFile(index)) {
            throw new IOException("no bundle index " + index + " (build the launcher: mvn -DskipTests install)");
        }
        Map<String, String> files = new LinkedHashMap<>();
        int n = 0;
        for (String line : Files.readAllLines(index, StandardCharsets.UTF_8)) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\t");
            if (parts.length != 2 || parts[1].contains("/") || parts[1].contains("\\")) {
                throw new IOException(index + ":" + n + ": expected LOCATION<TAB>FILE");
            }
            files.put(parts[0], parts[1]);
        }
        return new BundleIndex(dir, files);
    }

    /**
     * Writes an index.
     *
     * @param dir the bundle directory
     * @param files location to file name, in installation order
     * @throws IOException if it cannot be written
     */
    public static void write(Path dir, Map<String, String> files) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("# bundles staged by the virtuoso-launcher build: LOCATION<TAB>FILE");
        files.forEach((loc, file) -> lines.add(loc + "\t" + file));
        Files.write(dir.resolve(FILE_NAME), lines, StandardCharsets.UTF_8);
    }

    /**
     * @param location a feature's bundle location
     * @return the staged jar, or {@code null} if the index does not list it or the file is gone
     */
    public Path jar(String location) {
        String f = files.get(location);
        if (f == null) {
            return null;
        }
        Path p = dir.resolve(f);
        return Files.isRegularFile(p) ? p : null;
    }

    /** @return the indexed locations */
    public Map<String, String> entries() {
        return files;
    }
}
