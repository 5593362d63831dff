package dev.virtuoso.features;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a build can supply, by {@code groupId:artifactId}: the modules of the reactor (at the
 * project version) and the managed dependencies of the root POM and of further POMs (at their
 * managed versions). Immutable once built.
 */
public final class ArtifactCatalog {

    /** Where an artifact comes from. */
    public enum Origin {
        /** A module of the reactor. */
        MODULE,
        /** A managed dependency. */
        MANAGED
    }

    /**
     * One known artifact.
     *
     * @param version its version
     * @param origin module or managed dependency
     * @param moduleDir the module directory for {@link Origin#MODULE}, else {@code null}
     * @param bundle true for a module with a {@code bnd.bnd} (an OSGi bundle module)
     */
    public record Entry(String version, Origin origin, Path moduleDir, boolean bundle) {
    }

    private final Map<String, Entry> entries;

    private ArtifactCatalog(Map<String, Entry> entries) {
        this.entries = Map.copyOf(entries);
    }

    /**
     * Builds the catalog of a reactor.
     *
     * @param rootPom the reactor's root POM (its modules and managed dependencies)
     * @param extraPoms POMs whose own properties and managed dependencies count too (e.g. the
     *     features module's)
     * @return the catalog
     * @throws IOException if a POM cannot be read (a listed module without a POM included)
     */
    public static ArtifactCatalog of(Path rootPom, List<Path> extraPoms) throws IOException {
        PomModel root = PomModel.read(rootPom);
        Map<String, String> props = new HashMap<>(root.properties());
        props.put("project.version", root.version());
        props.put("project.groupId", root.groupId());
        Map<String, Entry> entries = new LinkedHashMap<>();
        Path rootDir = rootPom.toAbsolutePath().getParent();
        for (String module : root.modules()) {
            Path dir = rootDir.resolve(module).normalize();
            Path pom = dir.resolve("pom.xml");
            if (!Files.isRegularFile(pom)) {
                throw new IOException("module " + module + " is listed in " + rootPom + " but has no pom.xml");
            }
            PomModel m = PomModel.read(pom);
            String version = PomModel.interpolate(m.version(), props);
            entries.put(m.groupId() + ":" + m.artifactId(),
                    new Entry(version, Origin.MODULE, dir, Files.isRegularFile(dir.resolve("bnd.bnd"))));
        }
        List<PomModel.Managed> managed = new ArrayList<>(root.managed());
        for (Path extra : extraPoms) {
            PomModel m = PomModel.read(extra);
            props.putAll(m.properties());
            managed.addAll(m.managed());
        }
        for (PomModel.Managed d : managed) {
            entries.putIfAbsent(d.groupId() + ":" + d.artifactId(),
                    new Entry(PomModel.interpolate(d.version(), props), Origin.MANAGED, null, false));
        }
        return new ArtifactCatalog(entries);
    }

    /** @param key {@code groupId:artifactId} @return what the build knows of it, or {@code null} */
    public Entry get(String key) {
        return entries.get(key);
    }

    /** @return every known artifact by {@code groupId:artifactId} */
    public Map<String, Entry> entries() {
        return entries;
    }
}
