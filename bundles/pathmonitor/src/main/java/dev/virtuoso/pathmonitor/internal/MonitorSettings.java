package dev.virtuoso.pathmonitor.internal;

import java.util.Map;

import dev.virtuoso.pathmonitor.api.PathMonitorFactory;

/**
 * Validated settings of one monitor: the configured defaults overridden by per-connection
 * properties ({@code pathmonitor.<name>}). Durations are held in nanoseconds.
 */
record MonitorSettings(long probeFlowBytes, long probeWriteBytes, long probeIntervalNanos,
        int probeParallelPaths, int initialProbeFlows, long rateTimeConstantNanos, long minSampleNanos, long stallTimeoutNanos,
        int errorThreshold, long errorCooldownNanos, long maxErrorCooldownNanos, boolean probeOnPathAdded) {

    /** The paper's minimum probe flow. */
    static final long MIN_PROBE_FLOW_BYTES = 512 * 1024;
    private static final long MS = 1_000_000L;
    /** The defaults of {@link PathMonitorConfig}, for use without ConfigAdmin. */
    static final MonitorSettings DEFAULTS = new MonitorSettings(MIN_PROBE_FLOW_BYTES, 131072, 0, 0, 4, 200 * MS,
            1000 * 1000L, 1000 * MS, 3, 100 * MS, 30_000 * MS, true);

    /**
     * Per-connection property (not in the configuration): {@code false} makes a path added not be
     * probed until {@code requestProbe}; the core sets it on the accepting side, which probes only
     * after the connecting side's probes so the two sides' flows do not share a link direction.
     */
    static final String PROBE_ON_PATH_ADDED = "probeOnPathAdded";

    MonitorSettings {
        atLeast("probeFlowBytes", probeFlowBytes, MIN_PROBE_FLOW_BYTES);
        atLeast("probeWriteBytes", probeWriteBytes, 1);
        atLeast("probeIntervalMillis", probeIntervalNanos, 0);
        atLeast("probeParallelPaths", probeParallelPaths, 0);
        atLeast("initialProbeFlows", initialProbeFlows, 1);
        atLeast("rateTimeConstantMillis", rateTimeConstantNanos, 1);
        atLeast("minSampleMicros", minSampleNanos, 1);
        atLeast("stallTimeoutMillis", stallTimeoutNanos, 1);
        atLeast("errorThreshold", errorThreshold, 1);
        atLeast("errorCooldownMillis", errorCooldownNanos, 1);
        atLeast("maxErrorCooldownMillis", maxErrorCooldownNanos, errorCooldownNanos);
    }

    /** @return settings from a configuration, without overrides */
    static MonitorSettings of(PathMonitorConfig c) {
        return new MonitorSettings(c.probeFlowBytes(), c.probeWriteBytes(), millis(c.probeIntervalMillis()),
                c.probeParallelPaths(), c.initialProbeFlows(), millis(c.rateTimeConstantMillis()), c.minSampleMicros() * 1_000L,
                millis(c.stallTimeoutMillis()), c.errorThreshold(), millis(c.errorCooldownMillis()),
                millis(c.maxErrorCooldownMillis()), true);
    }

    /**
     * @param overrides per-connection properties; keys without the prefix are ignored
     * @return these settings with every {@code pathmonitor.<name>} override applied
     * @throws IllegalArgumentException for a malformed or out-of-range value
     */
    MonitorSettings with(Map<String, Object> overrides) {
        return new MonitorSettings(
                get(overrides, "probeFlowBytes", probeFlowBytes),
                get(overrides, "probeWriteBytes", probeWriteBytes),
                millis(get(overrides, "probeIntervalMillis", probeIntervalNanos / 1_000_000L)),
                (int) get(overrides, "probeParallelPaths", probeParallelPaths),
                (int) get(overrides, "initialProbeFlows", initialProbeFlows),
                millis(get(overrides, "rateTimeConstantMillis", rateTimeConstantNanos / 1_000_000L)),
                get(overrides, "minSampleMicros", minSampleNanos / 1_000L) * 1_000L,
                millis(get(overrides, "stallTimeoutMillis", stallTimeoutNanos / 1_000_000L)),
                (int) get(overrides, "errorThreshold", errorThreshold),
                millis(get(overrides, "errorCooldownMillis", errorCooldownNanos / 1_000_000L)),
                millis(get(overrides, "maxErrorCooldownMillis", maxErrorCooldownNanos / 1_000_000L)),
                flag(overrides, PROBE_ON_PATH_ADDED, probeOnPathAdded));
    }

    private static long get(Map<String, Object> props, String name, long dflt) {
        Object v = props.get(PathMonitorFactory.PROPERTY_PREFIX + name);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PathMonitorFactory.PROPERTY_PREFIX + name + " is not a number: " + v, e);
        }
    }

    private static boolean flag(Map<String, Object> props, String name, boolean dflt) {
        Object v = props.get(PathMonitorFactory.PROPERTY_PREFIX + name);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        String t = v.toString().trim();
        if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(t);
        }
        throw new IllegalArgumentException(PathMonitorFactory.PROPERTY_PREFIX + name + " is not true/false: " + v);
    }

    private static long millis(long ms) {
        return ms * 1_000_000L;
    }

    private static void atLeast(String name, long v, long min) {
        if (v < min) {
            throw new IllegalArgumentException("path monitor setting " + name + " must be >= " + min + ": " + v);
        }
    }
}
