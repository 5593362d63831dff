package dev.virtuoso.launcher;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.virtuoso.features.ArtifactCatalog;
import dev.virtuoso.features.BundleEntry;
import dev.virtuoso.features.Feature;
import dev.virtuoso.features.FeatureRepository;
import dev.virtuoso.features.MavenCoordinates;

/**
 * Build-time step of the launcher: copies every bundle the features name into one directory and
 * writes its {@link BundleIndex}. A reactor module's bundle is taken from its {@code target/} dir
 * or the local Maven repository, whichever is newer (so a module rebuilt with {@code package} is
 * seen); a third-party bundle from the local Maven repository.
 *
 * <p>Run by the build as {@code BundleStager OUT_DIR LOCAL_REPO ROOT_POM ALLOW_MISSING}.
 */
public final class BundleStager {

    private BundleStager() {
    }

    /**
     * Stages the bundles.
     *
     * @param out the bundle directory (created; jars no longer named are removed)
     * @param localRepo the local Maven repository
     * @param rootPom the reactor's root POM
     * @param allowMissing whether a missing bundle is only a warning
     * @return locations that could not be found
     * @throws IOException on I/O failure, or if something is missing and that is not allowed
     */
    public static List<String> stage(Path out, Path localRepo, Path rootPom, boolean allowMissing)
            throws IOException {
        FeatureRepository repo = FeaturesLoader.load();
        ArtifactCatalog catalog = ArtifactCatalog.of(rootPom, List.of());
        List<BundleEntry> bundles;
        try {
            bundles = repo.bundlesFor(repo.features().stream().map(Feature::name).toList());
        } catch (dev.virtuoso.features.FeaturesException e) {
            throw new IOException(e.getMessage(), e);
        }
        Files.createDirectories(out);
        Map<String, String> index = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (BundleEntry b : bundles) {
            MavenCoordinates c = MavenCoordinates.parse(b.location());
            Path src = newest(candidates(c, localRepo, catalog));
            if (src == null) {
                missing.add(b.location());
                continue;
            }
            Path dst = out.resolve(c.fileName());
            if (!Files.exists(dst) || Files.getLastModifiedTime(dst).compareTo(Files.getLastModifiedTime(src)) != 0
                    || Files.size(dst) != Files.size(src)) {
                Files.copy(src, dst, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
            }
            index.put(b.location(), c.fileName());
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(out, "*.jar")) {
            for (Path p : ds) {
                if (!index.containsValue(p.getFileName().toString())) {
                    Files.delete(p);
                }
            }
        }
        BundleIndex.write(out, index);
        if (!missing.isEmpty()) {
            String msg = missing.size() + " bundle(s) named by the features are not built yet:\n  "
                    + String.join("\n  ", missing) + "\n  (build them first: mvn -DskipTests install at the root)";
            if (!allowMissing) {
                throw new IOException(msg);
            }
            System.out.println("[launcher] WARNING: " + msg);
        }
        System.out.println("[launcher] staged " + index.size() + " bundles into " + out);
        return missing;
    }

    private static List<Path> candidates(MavenCoordinates c, Path localRepo, ArtifactCatalog catalog) {
        List<Path> out = new ArrayList<>();
        ArtifactCatalog.Entry e = catalog.get(c.key());
        if (e != null && e.origin() == ArtifactCatalog.Origin.MODULE) {
            out.add(e.moduleDir().resolve("target").resolve(c.fileName()));
        }
        out.add(localRepo.resolve(c.repositoryPath()));
        return out;
    }

    private static Path newest(List<Path> paths) throws IOException {
        Path best = null;
        FileTime bestTime = null;
        for (Path p : paths) {
            if (Files.isRegularFile(p)) {
                FileTime t = Files.getLastModifiedTime(p);
                if (best == null || t.compareTo(bestTime) > 0) {
                    best = p;
                    bestTime = t;
                }
            }
        }
        return best;
    }

    /**
     * Build entry point.
     *
     * @param args OUT_DIR LOCAL_REPO ROOT_POM [ALLOW_MISSING]
     * @throws IOException failing the build
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            throw new IllegalArgumentException("usage: BundleStager OUT_DIR LOCAL_REPO ROOT_POM [ALLOW_MISSING]");
        }
        stage(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), args.length > 3 && Boolean.parseBoolean(args[3]));
    }
}
