package dev.virtuoso.pathmonitor.api;

import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * OSGi service creating one {@link PathMonitor} per connection. Thread-safe. The core must work
 * without it (it then keeps its own simpler path state and never probes).
 */
@ProviderType
public interface PathMonitorFactory {

    /**
     * Creates the monitor of one connection. Properties given here override the factory's
     * configured defaults; keys are those of the factory's configuration, prefixed with
     * {@value #PROPERTY_PREFIX} (e.g. {@code pathmonitor.probeFlowBytes}), so a connection's
     * policy properties can be passed unchanged.
     *
     * @param connectionId the connection's identifier (logs, statistics)
     * @param properties per-connection overrides; never {@code null}
     * @param probeScratchBytes length of the peer's scratch region that probe WRITEs may target
     *     (0 disables active probing: the monitor then estimates from data completions only)
     * @return a new monitor, owned and closed by the caller
     */
    PathMonitor newMonitor(String connectionId, Map<String, Object> properties, long probeScratchBytes);

    /** Prefix of per-connection property keys understood by {@link #newMonitor}. */
    String PROPERTY_PREFIX = "pathmonitor.";
}
