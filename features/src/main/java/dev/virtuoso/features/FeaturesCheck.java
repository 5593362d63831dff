package dev.virtuoso.features;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The build-time check of a features descriptor against the build that ships it: the descriptor
 * is valid per {@link FeaturesReader}; every feature name and version is unique; every feature
 * dependency resolves inside the repository without cycles; every bundle is a {@code mvn:} URL
 * naming a module of the reactor at the project version or a managed dependency at its managed
 * version; no feature lists a bundle twice; and every bundle module of the reactor is in some
 * feature.
 */
public final class FeaturesCheck {

    private FeaturesCheck() {
    }

    /**
     * Checks a parsed repository.
     *
     * @param repo the repository
     * @param catalog what the build supplies
     * @return the problems, empty if none
     */
    public static List<String> check(FeatureRepository repo, ArtifactCatalog catalog) {
        List<String> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Set<String> referencedModules = new HashSet<>();
        for (Feature f : repo.features()) {
            if (!seen.add(f.name() + "/" + f.version())) {
                problems.add("feature " + f.name() + " " + f.version() + " is defined twice");
            }
            Set<String> locations = new HashSet<>();
            for (BundleEntry b : f.bundles()) {
                if (!locations.add(b.location())) {
                    problems.add("feature " + f.name() + " lists " + b.location() + " twice");
                }
                checkBundle(f, b, catalog, problems, referencedModules);
            }
        }
        List<String> names = repo.features().stream().map(Feature::name).toList();
        try {
            repo.bundlesFor(names);
        } catch (FeaturesException e) {
            problems.addAll(e.problems());
        }
        for (Map.Entry<String, ArtifactCatalog.Entry> e : catalog.entries().entrySet()) {
            if (e.getValue().bundle() && !referencedModules.contains(e.getKey())) {
                problems.add("bundle module " + e.getKey() + " (" + e.getValue().moduleDir()
                        + ") is in no feature");
            }
        }
        return problems;
    }

    private static void checkBundle(Feature f, BundleEntry b, ArtifactCatalog catalog, List<String> problems,
            Set<String> referencedModules) {
        MavenCoordinates c;
        try {
            c = MavenCoordinates.parse(b.location());
        } catch (IllegalArgumentException e) {
            problems.add("feature " + f.name() + ": " + e.getMessage());
            return;
        }
        if (c.version().contains("${")) {
            problems.add("feature " + f.name() + ": unresolved property in " + b.location());
            return;
        }
        ArtifactCatalog.Entry known = catalog.get(c.key());
        if (known == null) {
            problems.add("feature " + f.name() + ": " + c.key()
                    + " is neither a module of this reactor nor a managed dependency");
        } else if (!known.version().equals(c.version())) {
            problems.add("feature " + f.name() + ": " + b.location() + " has version " + c.version() + ", the build "
                    + (known.origin() == ArtifactCatalog.Origin.MODULE ? "builds " : "manages ") + known.version());
        } else if (known.origin() == ArtifactCatalog.Origin.MODULE) {
            referencedModules.add(c.key());
            if (!known.bundle()) {
                problems.add("feature " + f.name() + ": module " + c.key() + " is not a bundle module (no bnd.bnd)");
            }
        }
    }

    /**
     * Command-line entry, run by the build: {@code FeaturesCheck features.xml root-pom.xml [more-pom.xml...]}.
     *
     * @param args descriptor, root POM, further POMs with managed dependencies
     * @throws Exception failing the build with every problem listed
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: FeaturesCheck FEATURES_XML ROOT_POM [POM...]");
        }
        Path features = Path.of(args[0]);
        FeatureRepository repo;
        try {
            repo = new FeaturesReader().read(features);
        } catch (FeaturesException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        List<Path> extra = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            extra.add(Path.of(args[i]));
        }
        List<String> problems;
        try {
            problems = check(repo, ArtifactCatalog.of(Path.of(args[1]), extra));
        } catch (IOException e) {
            throw new IllegalStateException("features check: " + e.getMessage(), e);
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(features + ": " + problems.size() + " problem(s):\n  "
                    + String.join("\n  ", problems));
        }
        int bundles = repo.bundlesFor(repo.features().stream().map(Feature::name).toList()).size();
        System.out.println("[features] " + features.getFileName() + ": " + repo.features().size() + " features, "
                + bundles + " bundles, every one checked against the reactor and its managed versions");
    }
}
