package dev.virtuoso.itests.osgi;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;

/**
 * Explains why a bundle is not running: its state and, for a bundle that did not resolve or start,
 * the framework's own resolution or activation error.
 *
 * <p>Stateless. To obtain the error it asks the framework to start the bundle transiently, which
 * is how both Felix and Equinox report the unresolved requirement; call it only for a bundle that
 * is already known to be broken.
 */
public final class BundleDiagnostics {

    private BundleDiagnostics() {
    }

    /**
     * Checks that a bundle is running: ACTIVE, or RESOLVED for a fragment.
     *
     * @param bundle the bundle to check
     * @return {@code null} if it runs, otherwise a description with the state and the error
     */
    public static String problem(Bundle bundle) {
        boolean fragment = bundle.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
        int state = bundle.getState();
        if (state == Bundle.ACTIVE || (fragment && state == Bundle.RESOLVED)) {
            return null;
        }
        String expected = fragment ? "RESOLVED (fragment)" : "ACTIVE";
        return bundle.getSymbolicName() + " " + bundle.getVersion() + " [" + bundle.getBundleId() + "] is "
                + stateName(state) + ", expected " + expected + ": "
                + (fragment ? "fragment did not attach to its host" : startError(bundle));
    }

    /**
     * @param bundle a bundle
     * @return symbolic name, version, id and state, e.g. {@code dev.virtuoso.api 0.1.0 [7] ACTIVE}
     */
    public static String describe(Bundle bundle) {
        return bundle.getSymbolicName() + " " + bundle.getVersion() + " [" + bundle.getBundleId() + "] "
                + stateName(bundle.getState());
    }

    /**
     * @param state a {@link Bundle#getState()} value
     * @return its name
     */
    public static String stateName(int state) {
        switch (state) {
            case Bundle.UNINSTALLED: return "UNINSTALLED";
            case Bundle.INSTALLED: return "INSTALLED (not resolved)";
            case Bundle.RESOLVED: return "RESOLVED (not started)";
            case Bundle.STARTING: return "STARTING";
            case Bundle.STOPPING: return "STOPPING";
            case Bundle.ACTIVE: return "ACTIVE";
            default: return "state " + state;
        }
    }

    private static String startError(Bundle bundle) {
        if (bundle.getState() == Bundle.UNINSTALLED) {
            return "uninstalled";
        }
        try {
            bundle.start(Bundle.START_TRANSIENT);
            return "no error from the framework; it started only when retried (now "
                    + stateName(bundle.getState()) + ")";
        } catch (BundleException | RuntimeException e) {
            StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                text.append("\n    caused by ").append(cause);
            }
            return text.toString();
        }
    }
}
