package dev.virtuoso.pathmonitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;
import dev.virtuoso.pathmonitor.api.PathStatistics;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.spi.policy.ChunkOutcome;

/**
 * A new path started with another connection's measurement of the same path pair
 * ({@code seedCapacity}): taken only when fresh enough and before the path probed, it replaces the
 * connect-time flows; the monitor's own measurements are counted for the core to share.
 */
class SharedCapacityTest {
    private static final long MS = 1_000_000L;
    private static final long KIB = 1024;
    private static final String MAX_AGE = "pathmonitor.sharedCapacityMaxAgeMillis";

    private static ConnectionPathMonitor monitor(Map<String, Object> overrides) {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", ConnectionPathMonitorTest.defaults().with(overrides),
                128 * KIB, 0);
        m.tick(0);
        return m;
    }

    /** @return the paths of the probe WRITEs handed out now */
    private static List<Integer> issuedPaths(ConnectionPathMonitor m) {
        ProbeRequest req = new ProbeRequest();
        List<Integer> paths = new ArrayList<>();
        while (m.nextProbe(req)) {
            paths.add(req.path());
        }
        return paths;
    }

    @Test
    void aFreshMeasurementReplacesThePathsConnectTimeProbes() {
        ConnectionPathMonitor m = monitor(Map.of());
        m.onPathAdded(0);
        m.onPathAdded(1);
        assertTrue(m.seedCapacity(0, 5e6, 29_999 * MS), "younger than the default 30 s");
        assertEquals(5e6, m.probedCapacity(0));
        assertTrue(m.usable(0));
        assertEquals(List.of(1, 1, 1, 1), issuedPaths(m), "only the other path is probed (one 512 KiB flow)");
        assertEquals(0, m.capacityMeasurements(0), "a shared capacity is not this monitor's measurement");
        PathStatistics st = m.statistics(0, new PathStatistics());
        assertEquals(5e6, st.probedCapacity, "published for other threads");
        assertEquals(0, st.probesCompleted);
    }

    /**
     * A seeded path's first completions are often the reassembly's control messages (24 B): they
     * measure its latency, not its rate, and leave the estimate unknown; a data chunk sets it.
     */
    @Test
    void controlMessagesOnASeededPathLeaveItsRateUnknown() {
        ConnectionPathMonitor m = monitor(Map.of());
        m.onPathAdded(0);
        assertTrue(m.seedCapacity(0, 12.5e6, 0));
        m.tick(10 * MS);
        m.onChunkPosted(0, 24);
        m.tick(12 * MS);
        m.onChunkCompleted(0, 24, 2 * MS, ChunkOutcome.SUCCESS);
        m.onChunkPosted(0, 4096);
        m.tick(14 * MS);
        m.onChunkCompleted(0, 4096, 2 * MS, ChunkOutcome.SUCCESS);
        assertEquals(0.0, m.estimatedRate(0), "one packet at a time says nothing about the rate");
        assertTrue(m.usable(0));
        m.onChunkPosted(0, 64 * KIB);
        m.tick(20 * MS);
        m.onChunkCompleted(0, 64 * KIB, 5 * MS, ChunkOutcome.SUCCESS);
        assertEquals(64 * KIB * 1e9 / (5 * MS), m.estimatedRate(0), 1.0, "a data chunk is measured over its busy time");
    }

    @Test
    void aMeasurementOlderThanTheMaxAgeIsRefusedAndThePathProbed() {
        ConnectionPathMonitor m = monitor(Map.of(MAX_AGE, 100));
        m.onPathAdded(0);
        m.onPathAdded(1);
        assertFalse(m.seedCapacity(0, 5e6, 100 * MS + 1));
        assertTrue(m.seedCapacity(1, 7e6, 100 * MS), "exactly the max age is still fresh");
        assertEquals(0.0, m.probedCapacity(0));
        assertEquals(List.of(0, 0, 0, 0), issuedPaths(m));
    }

    @Test
    void aMaxAgeOfZeroNeverShares() {
        ConnectionPathMonitor m = monitor(Map.of(MAX_AGE, "0"));
        m.onPathAdded(0);
        assertFalse(m.seedCapacity(0, 5e6, 0));
        assertEquals(List.of(0, 0, 0, 0), issuedPaths(m));
    }

    @Test
    void nonsenseAndLateOffersAreRefused() {
        ConnectionPathMonitor m = monitor(Map.of());
        m.onPathAdded(0);
        for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertFalse(m.seedCapacity(0, bad, 0), "capacity " + bad);
        }
        assertFalse(m.seedCapacity(0, 5e6, -1), "negative age");
        assertEquals(4, issuedPaths(m).size());
        assertFalse(m.seedCapacity(0, 5e6, 0), "its own flow is running");

        m.onPathAdded(1);
        m.onPathState(1, PathState.RECOVERING);
        assertFalse(m.seedCapacity(1, 5e6, 0), "not UP");
        m.onPathState(1, PathState.UP);
        assertFalse(m.seedCapacity(1, 5e6, 0), "on probation: failback needs its own probe");
        assertThrows(IndexOutOfBoundsException.class, () -> m.seedCapacity(2, 5e6, 0));
        m.close();
        m.onPathAdded(2);
        assertFalse(m.seedCapacity(2, 5e6, 0), "closed");
    }

    @Test
    void theAcceptingSidesDeferredPathTakesItToo() {
        ConnectionPathMonitor m = monitor(Map.of("pathmonitor.probeOnPathAdded", false));
        m.onPathAdded(0);
        assertTrue(m.seedCapacity(0, 5e6, 0));
        assertEquals(List.of(), issuedPaths(m));
        m.requestProbe(0);
        assertEquals(4, issuedPaths(m).size(), "an explicit request still probes");
    }

    @Test
    void ownFlowsCountAsMeasurementsAndReplaceASharedCapacity() {
        ConnectionPathMonitor m = monitor(Map.of());
        m.onPathAdded(0);
        assertTrue(m.seedCapacity(0, 1e6, 0));
        m.requestProbe(0);
        // 4 WRITEs of 128 KiB completing 1 ms apart: 512 KiB in 4 ms
        long t = 10 * MS;
        int wrs = 0;
        ProbeRequest req = new ProbeRequest();
        m.tick(t);
        while (m.nextProbe(req)) {
            wrs++;
        }
        assertEquals(4, wrs);
        for (int i = 1; i <= wrs; i++) {
            m.tick(t + i * MS);
            m.onProbeCompleted(0, 128 * KIB, MS, ChunkOutcome.SUCCESS);
        }
        assertEquals(1, m.capacityMeasurements(0));
        assertEquals(512 * KIB * 1e9 / (4 * MS), m.probedCapacity(0), 1);

        // a failed flow measures nothing
        m.requestProbe(0);
        m.tick(t + 10 * MS);
        while (m.nextProbe(req)) {
            wrs++;
        }
        m.onProbeCompleted(0, 128 * KIB, MS, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(1, m.capacityMeasurements(0));
    }

    @Test
    void theMaxAgeIsASettingReadInMilliseconds() {
        assertEquals(30_000 * MS, MonitorSettings.DEFAULTS.sharedCapacityMaxAgeNanos());
        assertEquals(250 * MS, MonitorSettings.DEFAULTS.with(Map.of(MAX_AGE, " 250 ")).sharedCapacityMaxAgeNanos());
        assertEquals(0, MonitorSettings.DEFAULTS.with(Map.of(MAX_AGE, 0L)).sharedCapacityMaxAgeNanos());
        assertThrows(IllegalArgumentException.class, () -> MonitorSettings.DEFAULTS.with(Map.of(MAX_AGE, -1)));
        assertThrows(IllegalArgumentException.class, () -> MonitorSettings.DEFAULTS.with(Map.of(MAX_AGE, "soon")));
    }
}
