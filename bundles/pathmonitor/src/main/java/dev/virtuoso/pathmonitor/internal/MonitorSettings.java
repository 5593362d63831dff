package dev.virtuoso.pathmonitor.internal;

import java.util.Map;

import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.util.TypedProperties;

/**
 * Validated settings of one monitor: the configured defaults overridden by per-connection
 * properties ({@code pathmonitor.<name>}). Durations are held in nanoseconds.
 */
record MonitorSettings(long probeFlowBytes, long probeWriteBytes, long probeIntervalNanos,
        int probeParallelPaths, int initialProbeFlows, long rateTimeConstantNanos, long minSampleNanos, long stallTimeoutNanos,
        int errorThreshold, long errorCooldownNanos, long maxErrorCooldownNanos, boolean probeOnPathAdded,
        long sharedCapacityMaxAgeNanos) {

    /** The paper's minimum probe flow. */
    static final long MIN_PROBE_FLOW_BYTES = 512 * 1024;
    private static final long MS = 1_000_000L;
    /** Default of {@code sharedCapacityMaxAgeMillis}, in nanoseconds. */
    static final long DEFAULT_SHARED_CAPACITY_MAX_AGE_NANOS = 30_000 * MS;
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
        atLeast("sharedCapacityMaxAgeMillis", sharedCapacityMaxAgeNanos, 0);
    }

    /** Settings with the default {@code sharedCapacityMaxAgeMillis}. */
    MonitorSettings(long probeFlowBytes, long probeWriteBytes, long probeIntervalNanos, int probeParallelPaths,
            int initialProbeFlows, long rateTimeConstantNanos, long minSampleNanos, long stallTimeoutNanos,
            int errorThreshold, long errorCooldownNanos, long maxErrorCooldownNanos, boolean probeOnPathAdded) {
        this(probeFlowBytes, probeWriteBytes, probeIntervalNanos, probeParallelPaths, initialProbeFlows,
                rateTimeConstantNanos, minSampleNanos, stallTimeoutNanos, errorThreshold, errorCooldownNanos,
                maxErrorCooldownNanos, probeOnPathAdded, DEFAULT_SHARED_CAPACITY_MAX_AGE_NANOS);
    }

    /** @return settings from a configuration, without overrides */
    static MonitorSettings of(PathMonitorConfig c) {
        return new MonitorSettings(c.probeFlowBytes(), c.probeWriteBytes(),
                millis("probeIntervalMillis", c.probeIntervalMillis()), c.probeParallelPaths(), c.initialProbeFlows(),
                millis("rateTimeConstantMillis", c.rateTimeConstantMillis()),
                micros("minSampleMicros", c.minSampleMicros()), millis("stallTimeoutMillis", c.stallTimeoutMillis()),
                c.errorThreshold(), millis("errorCooldownMillis", c.errorCooldownMillis()),
                millis("maxErrorCooldownMillis", c.maxErrorCooldownMillis()), true,
                millis("sharedCapacityMaxAgeMillis", c.sharedCapacityMaxAgeMillis()));
    }

    /**
     * @param overrides per-connection properties; keys without the prefix are ignored
     * @return these settings with every {@code pathmonitor.<name>} override applied
     * @throws IllegalArgumentException for a malformed or out-of-range value
     */
    MonitorSettings with(Map<String, Object> overrides) {
        TypedProperties p = TypedProperties.of(overrides).prefixed(PathMonitorFactory.PROPERTY_PREFIX);
        return new MonitorSettings(
                p.getLong("probeFlowBytes", probeFlowBytes),
                p.getLong("probeWriteBytes", probeWriteBytes),
                millis("probeIntervalMillis", p.getLong("probeIntervalMillis", probeIntervalNanos / 1_000_000L)),
                p.getInt("probeParallelPaths", probeParallelPaths),
                p.getInt("initialProbeFlows", initialProbeFlows),
                millis("rateTimeConstantMillis", p.getLong("rateTimeConstantMillis", rateTimeConstantNanos / 1_000_000L)),
                micros("minSampleMicros", p.getLong("minSampleMicros", minSampleNanos / 1_000L)),
                millis("stallTimeoutMillis", p.getLong("stallTimeoutMillis", stallTimeoutNanos / 1_000_000L)),
                p.getInt("errorThreshold", errorThreshold),
                millis("errorCooldownMillis", p.getLong("errorCooldownMillis", errorCooldownNanos / 1_000_000L)),
                millis("maxErrorCooldownMillis", p.getLong("maxErrorCooldownMillis", maxErrorCooldownNanos / 1_000_000L)),
                p.getBoolean(PROBE_ON_PATH_ADDED, probeOnPathAdded),
                millis("sharedCapacityMaxAgeMillis",
                        p.getLong("sharedCapacityMaxAgeMillis", sharedCapacityMaxAgeNanos / 1_000_000L)));
    }

    private static long millis(String name, long ms) {
        return nanos(name, ms, 1_000_000L);
    }

    private static long micros(String name, long us) {
        return nanos(name, us, 1_000L);
    }

    /** A configured duration in nanoseconds; one too large for a long is refused, not wrapped to a negative. */
    private static long nanos(String name, long value, long unitNanos) {
        try {
            return Math.multiplyExact(value, unitNanos);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("path monitor setting " + name + " is too large: " + value);
        }
    }

    private static void atLeast(String name, long v, long min) {
        if (v < min) {
            throw new IllegalArgumentException("path monitor setting " + name + " must be >= " + min + ": " + v);
        }
    }
}
