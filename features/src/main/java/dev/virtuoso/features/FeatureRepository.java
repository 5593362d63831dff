package dev.virtuoso.features;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A parsed features repository (the root {@code <features>} element). Immutable.
 *
 * @param name the repository name
 * @param repositories URIs of other feature repositories it refers to
 * @param features the features, in document order
 */
public record FeatureRepository(String name, List<String> repositories, List<Feature> features) {

    public FeatureRepository {
        repositories = List.copyOf(repositories);
        features = List.copyOf(features);
    }

    /**
     * @param featureName a feature name
     * @return the feature of that name (the last one if several versions exist)
     */
    public Optional<Feature> feature(String featureName) {
        Feature found = null;
        for (Feature f : features) {
            if (f.name().equals(featureName)) {
                found = f;
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * Computes what installing some features installs: their bundles and those of every feature
     * they depend on, dependencies first, each location once, in document order otherwise.
     *
     * @param featureNames features to install
     * @return bundles to install, in installation order
     * @throws FeaturesException if a feature (or a dependency) is unknown, its version does not
     *     match, or the dependencies form a cycle
     */
    public List<BundleEntry> bundlesFor(List<String> featureNames) throws FeaturesException {
        List<String> problems = new ArrayList<>();
        Map<String, BundleEntry> ordered = new LinkedHashMap<>();
        Set<String> done = new HashSet<>();
        for (String n : featureNames) {
            visit(n, FeatureDependency.ANY_VERSION, new ArrayList<>(), done, ordered, problems);
        }
        if (!problems.isEmpty()) {
            throw new FeaturesException(name, problems);
        }
        return List.copyOf(ordered.values());
    }

    private void visit(String featureName, String version, List<String> path, Set<String> done,
            Map<String, BundleEntry> out, List<String> problems) {
        if (path.contains(featureName)) {
            problems.add("feature dependency cycle: " + String.join(" -> ", path) + " -> " + featureName);
            return;
        }
        if (!done.add(featureName)) {
            return;
        }
        Optional<Feature> f = feature(featureName);
        if (f.isEmpty()) {
            problems.add("unknown feature '" + featureName + "'"
                    + (path.isEmpty() ? "" : " (needed by " + path.get(path.size() - 1) + ")"));
            return;
        }
        Feature feature = f.get();
        if (!new FeatureDependency(featureName, version, false, false).accepts(feature.version())) {
            problems.add("feature '" + featureName + "' version " + version + " asked, " + feature.version()
                    + " present");
            return;
        }
        path.add(featureName);
        for (FeatureDependency d : feature.dependencies()) {
            visit(d.name(), d.version(), path, done, out, problems);
        }
        path.remove(path.size() - 1);
        for (BundleEntry b : feature.bundles()) {
            out.putIfAbsent(b.location(), b);
        }
    }
}
