package dev.virtuoso.pathmonitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.pathmonitor.api.ChunkLimits;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.spi.policy.ChunkOutcome;

/** Probe WRITEs obey the congestion policy's chunk limits like data chunks. */
class ProbeChunkLimitsTest {
    private static final long KIB = 1024;

    /** Path 0: 32 KiB chunks, one in flight (a shallow-buffer probe); path 1: no limit. */
    private static final ChunkLimits LIMITS = new ChunkLimits() {
        @Override
        public long maxChunkBytes(int path) {
            return path == 0 ? 32 * KIB : Long.MAX_VALUE;
        }

        @Override
        public int maxOutstandingChunks(int path) {
            return path == 0 ? 1 : Integer.MAX_VALUE;
        }
    };

    @Test
    void aLimitedPathIsProbedInTurnsWithChunkSizedWrites() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", ConnectionPathMonitorTest.defaults(), 128 * KIB, 0);
        m.chunkLimits(LIMITS);
        m.tick(0);
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        long now = 0;
        int writes = 0;
        long bytes = 0;
        while (m.nextProbe(req)) {
            assertEquals(0, req.path());
            assertEquals(32 * KIB, req.bytes(), "no probe WRITE larger than the policy's chunk");
            assertFalse(m.nextProbe(new ProbeRequest()), "one probe WRITE in flight, as the policy allows");
            assertEquals(1, m.inFlightChunks(0));
            now += 3_000_000L;
            m.tick(now);
            m.onProbeCompleted(0, req.bytes(), 3_000_000L, ChunkOutcome.SUCCESS);
            writes++;
            bytes += req.bytes();
        }
        assertEquals(16, writes, "the 512 KiB flow in 32 KiB WRITEs, one after the other");
        assertEquals(512 * KIB, bytes);
        assertEquals(1, m.statistics(0, new dev.virtuoso.pathmonitor.api.PathStatistics()).probesCompleted);
        assertTrue(m.probedCapacity(0) > 0);
    }

    @Test
    void anUnlimitedPathKeepsTheMonitorsOwnWritesPostedAtOnce() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", ConnectionPathMonitorTest.defaults(), 128 * KIB, 0);
        m.chunkLimits(LIMITS);
        m.tick(0);
        m.onPathAdded(0);
        m.onPathAdded(1);
        ProbeRequest req = new ProbeRequest();
        int onPath1 = 0;
        int onPath0 = 0;
        while (m.nextProbe(req)) {
            if (req.path() == 1) {
                assertEquals(128 * KIB, req.bytes());
                onPath1++;
            } else {
                onPath0++;
            }
        }
        assertEquals(4, onPath1, "512 KiB in four 128 KiB WRITEs, all at once");
        assertEquals(1, onPath0, "the limited path waits for its first WRITE");
    }

    @Test
    void withoutLimitsTheDefaultIsUnchanged() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", ConnectionPathMonitorTest.defaults(), 128 * KIB, 0);
        m.chunkLimits(null);
        m.tick(0);
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        int n = 0;
        while (m.nextProbe(req)) {
            assertEquals(128 * KIB, req.bytes());
            n++;
        }
        assertEquals(4, n);
    }
}
