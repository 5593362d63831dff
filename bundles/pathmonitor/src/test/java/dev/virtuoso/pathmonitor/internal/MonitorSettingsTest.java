package dev.virtuoso.pathmonitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class MonitorSettingsTest {
    private static final long MS = 1_000_000L;
    private static final long KIB = 1024;

    /** Settings at every lower bound. */
    private static MonitorSettings minimal() {
        return new MonitorSettings(512 * KIB, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, true);
    }

    @Test
    void everyLowerBoundIsAccepted() {
        MonitorSettings s = minimal();
        assertEquals(512 * KIB, s.probeFlowBytes());
        assertEquals(1, s.maxErrorCooldownNanos());
    }

    @Test
    void eachValueBelowItsBoundIsRejected() {
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB - 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, -1, 0, 1, 1, 1, 1, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, -1, 1, 1, 1, 1, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> new MonitorSettings(512 * KIB, 1, 0, 0, 1, 1, 1, 1, 1, 10, 9, true),
                "the longest pause is at least the first");
    }

    @Test
    void noOverridesKeepEveryDuration() {
        MonitorSettings s = new MonitorSettings(512 * KIB, 4096, 7 * MS, 2, 3, 9 * MS, 5_000, 11 * MS, 4, 13 * MS,
                17 * MS, false);
        assertEquals(s, s.with(Map.of()));
    }

    @Test
    void overridesAreReadInTheirUnits() {
        MonitorSettings s = MonitorSettings.DEFAULTS.with(Map.of(
                "pathmonitor.probeIntervalMillis", 7,
                "pathmonitor.rateTimeConstantMillis", "9",
                "pathmonitor.minSampleMicros", " 5 ",
                "pathmonitor.stallTimeoutMillis", 11L,
                "pathmonitor.errorCooldownMillis", 13,
                "pathmonitor.maxErrorCooldownMillis", 17,
                "pathmonitor.probeWriteBytes", 4096,
                "pathmonitor.errorThreshold", 4));
        assertEquals(7 * MS, s.probeIntervalNanos());
        assertEquals(9 * MS, s.rateTimeConstantNanos());
        assertEquals(5_000, s.minSampleNanos());
        assertEquals(11 * MS, s.stallTimeoutNanos());
        assertEquals(13 * MS, s.errorCooldownNanos());
        assertEquals(17 * MS, s.maxErrorCooldownNanos());
        assertEquals(4096, s.probeWriteBytes());
        assertEquals(4, s.errorThreshold());
    }

    @Test
    void malformedOverridesAreRejected() {
        assertThrows(IllegalArgumentException.class,
                () -> MonitorSettings.DEFAULTS.with(Map.of("pathmonitor.errorThreshold", "three")));
        assertThrows(IllegalArgumentException.class,
                () -> MonitorSettings.DEFAULTS.with(Map.of("pathmonitor.errorThreshold", 0)));
        assertEquals(MonitorSettings.DEFAULTS, MonitorSettings.DEFAULTS.with(Map.of(MonitorSettings.PROBE_ON_PATH_ADDED,
                "x")), "a key without the prefix is not an override");
        assertThrows(IllegalArgumentException.class,
                () -> MonitorSettings.DEFAULTS.with(Map.of("pathmonitor." + MonitorSettings.PROBE_ON_PATH_ADDED, "yes")));
    }

    @Test
    void durationsTooLargeForNanosecondsAreRejectedNotWrapped() {
        // 10^13 ms x 10^6 overflows a long: it used to wrap to a negative duration
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MonitorSettings.DEFAULTS.with(Map.of("pathmonitor.stallTimeoutMillis", 10_000_000_000_000L)));
        assertTrue(e.getMessage().contains("stallTimeoutMillis is too large"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MonitorSettings.DEFAULTS
                .with(Map.of("pathmonitor.minSampleMicros", Long.MAX_VALUE / 10)));
        long max = Long.MAX_VALUE / 1_000_000L;
        assertEquals(max * 1_000_000L, MonitorSettings.DEFAULTS
                .with(Map.of("pathmonitor.sharedCapacityMaxAgeMillis", max)).sharedCapacityMaxAgeNanos(),
                "the largest value that fits is kept as it is");
    }

    @Test
    void probeOnPathAddedAcceptsBooleansAndTheirNames() {
        String key = "pathmonitor." + MonitorSettings.PROBE_ON_PATH_ADDED;
        assertTrue(MonitorSettings.DEFAULTS.probeOnPathAdded());
        assertFalse(MonitorSettings.DEFAULTS.with(Map.of(key, false)).probeOnPathAdded());
        assertFalse(MonitorSettings.DEFAULTS.with(Map.of(key, " FALSE ")).probeOnPathAdded());
        MonitorSettings off = MonitorSettings.DEFAULTS.with(Map.of(key, Boolean.FALSE));
        assertTrue(off.with(Map.of(key, Boolean.TRUE)).probeOnPathAdded());
        assertTrue(off.with(Map.of(key, "True")).probeOnPathAdded());
        assertFalse(off.with(Map.of()).probeOnPathAdded(), "no override keeps the current value");
    }
}
