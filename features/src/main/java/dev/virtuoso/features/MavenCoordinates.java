package dev.virtuoso.features;

import java.util.Objects;

/**
 * Coordinates of a Maven artifact as written in a Pax URL {@code mvn:group/artifact/version[/type[/classifier]]},
 * the form Karaf feature descriptors use for bundles. Immutable.
 *
 * @param groupId group
 * @param artifactId artifact
 * @param version version (never a range: descriptors we accept pin exact versions)
 * @param type packaging type, {@code jar} by default
 * @param classifier classifier, empty if none
 */
public record MavenCoordinates(String groupId, String artifactId, String version, String type, String classifier) {

    /** URL scheme of Pax URL Maven locations. */
    public static final String SCHEME = "mvn:";

    public MavenCoordinates {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(artifactId, "artifactId");
        Objects.requireNonNull(version, "version");
        type = type == null || type.isEmpty() ? "jar" : type;
        classifier = classifier == null ? "" : classifier;
    }

    /**
     * Parses a {@code mvn:} location.
     *
     * @param url e.g. {@code mvn:org.apache.felix/org.apache.felix.scr/2.2.12}
     * @return the coordinates
     * @throws IllegalArgumentException if it is not a {@code mvn:g/a/v[/type[/classifier]]} URL
     *     with non-empty group, artifact and version, or names a repository or a version range
     */
    public static MavenCoordinates parse(String url) {
        if (url == null || !url.startsWith(SCHEME)) {
            throw new IllegalArgumentException("not a mvn: URL: " + url);
        }
        String rest = url.substring(SCHEME.length());
        if (rest.contains("!")) {
            throw new IllegalArgumentException("repository-qualified mvn: URLs are not supported: " + url);
        }
        String[] parts = rest.split("/", -1);
        if (parts.length < 3 || parts.length > 5) {
            throw new IllegalArgumentException("expected mvn:group/artifact/version[/type[/classifier]]: " + url);
        }
        for (int i = 0; i < 3; i++) {
            if (parts[i].isBlank()) {
                throw new IllegalArgumentException("empty group, artifact or version in " + url);
            }
        }
        String version = parts[2];
        if (version.startsWith("[") || version.startsWith("(") || version.equals("LATEST")
                || version.equals("RELEASE")) {
            throw new IllegalArgumentException("version must be exact: " + url);
        }
        String type = parts.length > 3 ? parts[3] : "jar";
        String classifier = parts.length > 4 ? parts[4] : "";
        return new MavenCoordinates(parts[0], parts[1], version, type, classifier);
    }

    /** @return {@code groupId:artifactId}, the key under which a build manages a version */
    public String key() {
        return groupId + ":" + artifactId;
    }

    /** @return the file name in a Maven repository, e.g. {@code org.apache.felix.scr-2.2.12.jar} */
    public String fileName() {
        return artifactId + "-" + version + (classifier.isEmpty() ? "" : "-" + classifier) + "." + type;
    }

    /** @return the path below a Maven repository's root, with '/' separators */
    public String repositoryPath() {
        return groupId.replace('.', '/') + "/" + artifactId + "/" + version + "/" + fileName();
    }

    /** @return the {@code mvn:} URL (type and classifier only where they differ from the defaults) */
    public String toUrl() {
        StringBuilder sb = new StringBuilder(SCHEME).append(groupId).append('/').append(artifactId).append('/')
                .append(version);
        if (!classifier.isEmpty() || !type.equals("jar")) {
            sb.append('/').append(type);
        }
        if (!classifier.isEmpty()) {
            sb.append('/').append(classifier);
        }
        return sb.toString();
    }
}
