package dev.virtuoso.features;

/**
 * One {@code <bundle>} of a feature.
 *
 * @param location the bundle location, e.g. a {@code mvn:} URL
 * @param startLevel the start level asked for, or 0 for the container's default
 * @param start whether the bundle is started (the schema's default is true)
 * @param dependency whether the bundle is only a dependency: installed where nothing else provides it
 */
public record BundleEntry(String location, int startLevel, boolean start, boolean dependency) {
}
