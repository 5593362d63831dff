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
import dev.virtuoso.pathmonitor.api.PathHealth;
import dev.virtuoso.pathmonitor.api.PathStatistics;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.spi.policy.ChunkOutcome;

/** What the monitor publishes for other threads, its byte accounting and asynchronous probe requests. */
class PathMonitorAccountingTest {
    private static final long MS = 1_000_000L;
    private static final long KIB = 1024;

    private static ConnectionPathMonitor withoutProbing() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c", ConnectionPathMonitorTest.defaults(), 0, 0);
        m.tick(0);
        return m;
    }

    /** Probing enabled, but added paths wait for a request. */
    private static ConnectionPathMonitor probingOnRequest() {
        MonitorSettings s = ConnectionPathMonitorTest.defaults().with(Map.of("pathmonitor.probeOnPathAdded", false));
        ConnectionPathMonitor m = new ConnectionPathMonitor("c", s, 128 * KIB, 0);
        m.tick(0);
        return m;
    }

    private static List<Integer> probedPaths(ConnectionPathMonitor m) {
        ProbeRequest req = new ProbeRequest();
        List<Integer> out = new ArrayList<>();
        while (m.nextProbe(req)) {
            if (!out.contains(req.path())) {
                out.add(req.path());
            }
        }
        return out;
    }

    @Test
    void statisticsArePublishedByEveryHook() {
        ConnectionPathMonitor m = withoutProbing();
        m.onPathAdded(0);
        PathStatistics st = m.statistics(0, new PathStatistics());
        assertEquals(PathHealth.HEALTHY, st.health);
        assertEquals(0, st.path);

        m.onChunkPosted(0, 1000);
        assertEquals(1000, m.statistics(0, st).inFlightBytes);

        m.tick(2 * MS);
        m.onChunkCompleted(0, 1000, 800, ChunkOutcome.SUCCESS);
        m.statistics(0, st);
        assertEquals(1000, st.bytesCompleted);
        assertEquals(1, st.chunksCompleted);
        assertEquals(0, st.inFlightBytes);
        assertEquals(800, st.smoothedLatencyNanos);

        m.onChunkPosted(0, 10);
        m.onChunkCompleted(0, 10, 0, ChunkOutcome.FLUSHED);
        assertEquals(1, m.statistics(0, st).chunksFailed);
        assertEquals(1, m.consecutiveErrors(0));

        m.onPathState(0, PathState.DOWN);
        assertEquals(PathHealth.DOWN, m.statistics(0, st).health);
        assertThrows(IndexOutOfBoundsException.class, () -> m.statistics(1, new PathStatistics()));
    }

    @Test
    void completedBytesAndLatencyAccumulate() {
        ConnectionPathMonitor m = withoutProbing();
        m.onPathAdded(0);
        m.onChunkPosted(0, 1000);
        m.onChunkCompleted(0, 1000, 800, ChunkOutcome.SUCCESS);
        m.onChunkPosted(0, 500);
        m.onChunkCompleted(0, 500, 1600, ChunkOutcome.SUCCESS);
        assertEquals(1500, m.completedBytes(0));
        assertEquals(900, m.smoothedLatencyNanos(0), "an eighth of the way to the new sample");
        PathStatistics st = m.statistics(0, new PathStatistics());
        assertEquals(2, st.chunksCompleted);
        assertEquals(1500, st.bytesCompleted);
        assertEquals(0, m.completedBytes(7), "unknown path");
    }

    @Test
    void inFlightBytesFollowEachCompletion() {
        ConnectionPathMonitor m = withoutProbing();
        m.onPathAdded(0);
        m.onChunkPosted(0, 1000);
        m.onChunkPosted(0, 500);
        m.onChunkCompleted(0, 1000, 10, ChunkOutcome.SUCCESS);
        assertEquals(500, m.inFlightBytes(0));
        assertEquals(1, m.inFlightChunks(0));
        m.onChunkCompleted(0, 500, 10, ChunkOutcome.SUCCESS);
        assertEquals(0, m.inFlightBytes(0));
        m.onChunkCompleted(0, 500, 10, ChunkOutcome.SUCCESS);
        assertEquals(1, m.unexpectedCompletions());
        assertEquals(0, m.inFlightChunks(0));
    }

    @Test
    void nowIsTheLastTick() {
        ConnectionPathMonitor m = withoutProbing();
        m.tick(12_345);
        assertEquals(12_345, m.nowNanos());
    }

    @Test
    void asyncProbeRequestsNameValidSlots() {
        ConnectionPathMonitor m = probingOnRequest();
        assertThrows(IllegalArgumentException.class, () -> m.requestProbeAsync(-1));
        assertThrows(IllegalArgumentException.class, () -> m.requestProbeAsync(64));
        m.requestProbeAsync(63);
        m.tick(MS);
        assertTrue(probedPaths(m).isEmpty(), "a request for a slot not added is ignored");
    }

    @Test
    void asyncProbeRequestsAreTakenAtTheNextHousekeepingTick() {
        ConnectionPathMonitor m = probingOnRequest();
        m.onPathAdded(0);
        m.onPathAdded(1);
        m.onPathAdded(2);
        assertTrue(probedPaths(m).isEmpty());
        m.requestProbeAsync(1);
        m.requestProbeAsync(2);
        m.tick(MS - 1);
        assertTrue(probedPaths(m).isEmpty(), "housekeeping runs once per millisecond");
        m.tick(MS);
        assertEquals(List.of(1, 2), probedPaths(m));
    }

    @Test
    void anAsyncRequestForTheNextSlotIsIgnored() {
        ConnectionPathMonitor m = probingOnRequest();
        m.onPathAdded(0);
        m.onPathAdded(1);
        m.requestProbeAsync(2);
        m.tick(MS);
        assertTrue(probedPaths(m).isEmpty());
    }

    @Test
    void requestProbeAsyncReachesTheLastSlot() {
        ConnectionPathMonitor m = probingOnRequest();
        for (int p = 0; p < 64; p++) {
            m.onPathAdded(p);
        }
        m.requestProbeAsync(63);
        m.tick(MS);
        assertEquals(List.of(63), probedPaths(m));
    }

    @Test
    void closeRunsTheCloseActionOnce() {
        ConnectionPathMonitor m = withoutProbing();
        int[] runs = {0};
        m.onClose(() -> runs[0]++);
        assertFalse(m.closed());
        m.close();
        m.close();
        assertTrue(m.closed());
        assertEquals(1, runs[0]);
        m.onPathAdded(0);
        assertFalse(m.nextProbe(new ProbeRequest()));
    }
}
