package dev.virtuoso.launcher;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.osgi.framework.Bundle;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.namespace.ExecutionEnvironmentNamespace;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.resource.Capability;
import org.osgi.resource.Requirement;

/**
 * Whether this framework provides the execution environments (osgi.ee) an installed bundle
 * requires: asked of the framework's own capabilities, before the bundle is started, so that a
 * bundle built for a newer Java is reported by its need instead of as a resolution failure.
 */
final class ExecutionEnvironments {
    private static final Pattern JAVA_VERSION = Pattern.compile("\\(osgi\\.ee=JavaSE\\)\\(version=([0-9.]+)\\)");

    private ExecutionEnvironments() {
    }

    /**
     * @param bundle an installed bundle
     * @param systemBundle the framework
     * @return null if the framework provides every execution environment the bundle requires, else
     *     what it needs, e.g. "Java 22 or newer (this JVM is Java 17)"
     */
    static String unmet(Bundle bundle, Bundle systemBundle) {
        BundleRevision revision = bundle.adapt(BundleRevision.class);
        if (revision == null) {
            return null; // uninstalled meanwhile: the start reports it
        }
        List<Capability> provided = systemBundle.adapt(BundleRevision.class)
                .getCapabilities(ExecutionEnvironmentNamespace.EXECUTION_ENVIRONMENT_NAMESPACE);
        for (Requirement r : revision.getRequirements(ExecutionEnvironmentNamespace.EXECUTION_ENVIRONMENT_NAMESPACE)) {
            String filter = r.getDirectives().get(ExecutionEnvironmentNamespace.REQUIREMENT_FILTER_DIRECTIVE);
            if (filter == null) {
                continue;
            }
            Filter f;
            try {
                f = FrameworkUtil.createFilter(filter);
            } catch (InvalidSyntaxException e) {
                return "a valid osgi.ee requirement (" + filter + ": " + e.getMessage() + ")";
            }
            if (provided.stream().noneMatch(c -> f.matches(c.getAttributes()))) {
                Matcher m = JAVA_VERSION.matcher(filter);
                String jvm = "this JVM is Java " + Runtime.version().feature();
                return m.find() ? "Java " + m.group(1) + " or newer (" + jvm + ")"
                        : "the execution environment " + filter + " (" + jvm + ")";
            }
        }
        return null;
    }
}
