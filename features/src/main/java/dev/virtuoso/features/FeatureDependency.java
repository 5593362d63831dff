package dev.virtuoso.features;

/**
 * A {@code <feature>} reference inside a feature: the referenced feature must be installed too.
 *
 * @param name the referenced feature's name
 * @param version the version asked for; {@code 0.0.0} (the schema default) means any
 * @param prerequisite whether Karaf installs it before resolving the referencing feature
 * @param dependency whether it is only a dependency for the resolver
 */
public record FeatureDependency(String name, String version, boolean prerequisite, boolean dependency) {

    /** The schema's default version, which matches any version. */
    public static final String ANY_VERSION = "0.0.0";

    /** @param featureVersion a feature's version @return true if this reference accepts it */
    public boolean accepts(String featureVersion) {
        return version.equals(ANY_VERSION) || version.equals(featureVersion);
    }
}
