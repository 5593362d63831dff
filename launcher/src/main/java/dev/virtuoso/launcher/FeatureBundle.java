package dev.virtuoso.launcher;

/**
 * One {@code <bundle>} of a Karaf feature, as the launcher installs it.
 *
 * @param location the bundle location, a {@code mvn:groupId/artifactId/version} URL
 * @param start whether the bundle is started (the features schema's default is true)
 */
record FeatureBundle(String location, boolean start) {
}
