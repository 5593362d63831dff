package dev.virtuoso.features;

import java.util.List;

/**
 * A {@code <feature>} of a features repository. Immutable.
 *
 * @param name the feature name
 * @param version its version ({@code 0.0.0} when the descriptor gives none)
 * @param description one-line description, empty if none
 * @param details longer help text, empty if none
 * @param dependencies features this one needs, in document order
 * @param bundles bundles of this feature, in document order
 * @param ignoredElements names of elements our launcher does not act on (config, configfile,
 *     conditional, requirement, capability, library, scoping), for warnings
 */
public record Feature(String name, String version, String description, String details,
        List<FeatureDependency> dependencies, List<BundleEntry> bundles, List<String> ignoredElements) {

    public Feature {
        dependencies = List.copyOf(dependencies);
        bundles = List.copyOf(bundles);
        ignoredElements = List.copyOf(ignoredElements);
    }
}
