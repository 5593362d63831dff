package dev.virtuoso.pathmonitor.internal;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.pathmonitor.api.PathStatistics;

/**
 * The {@link PathMonitorFactory} service, also the Gogo commands {@code virtuoso:monitor} (per-path
 * state of the live monitors) and {@code virtuoso:probe} (start a capacity probe). Configuration
 * changes apply to monitors created afterwards; the service stays registered through them
 * (connections keep their monitors).
 */
@Component(service = PathMonitorFactory.class, configurationPid = PathMonitorService.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL,
        property = {"osgi.command.scope=virtuoso", "osgi.command.function=monitor", "osgi.command.function=probe"})
@Designate(ocd = PathMonitorConfig.class)
public final class PathMonitorService implements PathMonitorFactory {
    /** ConfigAdmin PID of the defaults. */
    public static final String PID = "dev.virtuoso.pathmonitor";

    private final Set<ConnectionPathMonitor> live = ConcurrentHashMap.newKeySet();
    private volatile MonitorSettings defaults = MonitorSettings.DEFAULTS;

    /** @param config the configured defaults */
    @Activate
    @Modified
    void configure(PathMonitorConfig config) {
        defaults = MonitorSettings.of(config);
    }

    @Deactivate
    void deactivate() {
        live.clear();
    }

    @Override
    public PathMonitor newMonitor(String connectionId, Map<String, Object> properties, long probeScratchBytes) {
        Objects.requireNonNull(connectionId, "connectionId");
        MonitorSettings s = defaults.with(Objects.requireNonNull(properties, "properties"));
        ConnectionPathMonitor m = new ConnectionPathMonitor(connectionId, s, probeScratchBytes, System.nanoTime());
        live.add(m);
        m.onClose(() -> live.remove(m));
        return m;
    }

    /**
     * Gogo {@code virtuoso:monitor}: every live monitor's paths.
     *
     * @return one line per path
     */
    String monitorText() {
        StringBuilder sb = new StringBuilder();
        for (ConnectionPathMonitor m : live) {
            append(sb, m);
        }
        return sb.length() == 0 ? "no connection has a path monitor" : sb.toString();
    }

    /**
     * Gogo {@code virtuoso:monitor <connection>}.
     *
     * @param connectionId a connection identifier
     * @return one line per path
     */
    String monitorText(String connectionId) {
        StringBuilder sb = new StringBuilder();
        for (ConnectionPathMonitor m : live) {
            if (m.connectionId().equals(connectionId)) {
                append(sb, m);
            }
        }
        return sb.length() == 0 ? "no path monitor for connection " + connectionId : sb.toString();
    }

    /**
     * Gogo {@code virtuoso:probe <connection> <path>}: probes the path's capacity again.
     *
     * @param connectionId a connection identifier
     * @param path path slot
     * @return what was done
     */
    String probeText(String connectionId, int path) {
        for (ConnectionPathMonitor m : live) {
            if (m.connectionId().equals(connectionId)) {
                if (path < 0 || path >= m.pathCount()) {
                    return "connection " + connectionId + " has no path " + path;
                }
                m.requestProbeAsync(path);
                return "probe requested on connection " + connectionId + " path " + path;
            }
        }
        return "no path monitor for connection " + connectionId;
    }

    /**
     * Gogo {@code virtuoso:monitor [connection]}: prints to the session's output (shown by Karaf's
     * batch client too, which does not print returned values).
     *
     * @param args nothing, or a connection identifier
     */
    public void monitor(String... args) {
        if (args.length > 1 || (args.length == 1 && args[0].startsWith("-"))) {
            System.out.println("usage: monitor [CONNECTION]: every live path monitor, or one connection's");
            return;
        }
        System.out.println(args.length == 0 ? monitorText() : monitorText(args[0]));
    }

    /**
     * Gogo {@code virtuoso:probe <connection> <path>}: probes the path's capacity again.
     *
     * @param args a connection identifier and a path slot
     */
    public void probe(String... args) {
        if (args.length != 2 || !args[1].matches("\\d{1,4}")) {
            System.out.println("usage: probe CONNECTION PATH: probes the capacity of the path (a slot number, as"
                    + " in monitor) again");
            return;
        }
        System.out.println(probeText(args[0], Integer.parseInt(args[1])));
    }

    private static void append(StringBuilder sb, ConnectionPathMonitor m) {
        PathStatistics st = new PathStatistics();
        sb.append("connection ").append(m.connectionId()).append('\n');
        sb.append(String.format(Locale.ROOT, "  %4s %-10s %12s %12s %10s %12s %12s %8s%n", "path", "health",
                "est Mbit/s", "probe Mbit/s", "lat us", "bytes", "inflight", "failed"));
        for (int p = 0; p < m.pathCount(); p++) {
            m.statistics(p, st);
            sb.append(String.format(Locale.ROOT, "  %4d %-10s %12.1f %12.1f %10d %12d %12d %8d%n", p, st.health,
                    st.estimatedRate * 8 / 1e6, st.probedCapacity * 8 / 1e6, st.smoothedLatencyNanos / 1000,
                    st.bytesCompleted, st.inFlightBytes, st.chunksFailed));
        }
    }
}
