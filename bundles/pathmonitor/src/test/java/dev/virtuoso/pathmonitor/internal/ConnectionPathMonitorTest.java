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

class ConnectionPathMonitorTest {
    private static final long MS = 1_000_000L;
    private static final long KIB = 1024;

    static MonitorSettings defaults() {
        return new MonitorSettings(512 * KIB, 128 * KIB, 0, 0, 1, 200 * MS, 1 * MS, 1000 * MS, 3, 100 * MS, 30_000 * MS, true);
    }

    /** Serves WRITEs FIFO at a fixed rate after a fixed one-way delay (one RC QP on a link). */
    static final class Link {
        double bytesPerSec;
        final long delayNanos;
        long busyUntil;

        Link(double bytesPerSec, long delayNanos) {
            this.bytesPerSec = bytesPerSec;
            this.delayNanos = delayNanos;
        }

        long completionTime(long postedAt, long bytes) {
            long start = Math.max(postedAt, busyUntil);
            busyUntil = start + (long) (bytes * 1e9 / bytesPerSec);
            return busyUntil + delayNanos;
        }
    }

    @Test
    void probeFlowsMeasureEachPathsCapacity() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.tick(0);
        m.onPathAdded(0);
        m.onPathAdded(1);
        Link[] links = {new Link(25e6, 50_000), new Link(3.125e6, 50_000)};
        ProbeRequest req = new ProbeRequest();
        List<long[]> completions = new ArrayList<>(); // time, path, bytes, postedAt
        while (m.nextProbe(req)) {
            completions.add(new long[] {links[req.path()].completionTime(0, req.bytes()), req.path(), req.bytes(), 0});
        }
        assertEquals(8, completions.size(), "512 KiB flow in 128 KiB WRITEs on each of 2 paths");
        assertEquals(512 * KIB, m.inFlightBytes(0));
        assertEquals(4, m.inFlightChunks(1));
        completions.sort((a, b) -> Long.compare(a[0], b[0]));
        for (long[] c : completions) {
            m.tick(c[0]);
            m.onProbeCompleted((int) c[1], c[2], c[0] - c[3], ChunkOutcome.SUCCESS);
        }
        assertEquals(25e6, m.probedCapacity(0), 25e6 * 0.01);
        assertEquals(3.125e6, m.probedCapacity(1), 3.125e6 * 0.01);
        assertEquals(0, m.inFlightBytes(0));
        assertFalse(m.nextProbe(req), "one flow per path");
        PathStatistics st = m.statistics(1, new PathStatistics());
        assertEquals(1, st.probesCompleted);
        assertEquals(3.125e6, st.probedCapacity, 3.125e6 * 0.01);
    }

    @Test
    void bunchedAcksDoNotInflateTheProbedCapacity() {
        // a 25 MB/s path whose ACKs wait 200 ms behind reverse traffic and then arrive together
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.tick(0);
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        int wrs = 0;
        while (m.nextProbe(req)) {
            wrs++;
        }
        assertEquals(4, wrs);
        for (int i = 0; i < wrs; i++) {
            long t = 221 * MS + i * 100_000L;
            m.tick(t);
            m.onProbeCompleted(0, 128 * KIB, t, ChunkOutcome.SUCCESS);
        }
        // nothing was in flight ahead of the flow: the elapsed-time rate, not the dispersion
        double elapsedRate = 512 * KIB * 1e9 / (221 * MS + 300_000L);
        assertEquals(elapsedRate, m.probedCapacity(0), elapsedRate * 0.001);
    }

    @Test
    void aFlowQueuedBehindDataUsesTheCappedDispersion() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.tick(0);
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        while (m.nextProbe(req)) {
            m.tick(MS);
            m.onProbeCompleted(0, req.bytes(), MS, ChunkOutcome.SUCCESS);
        }
        // 512 KiB of data ahead of the requested flow drains for 20 ms; then 25 MB/s WRITEs
        m.onChunkPosted(0, 512 * KIB);
        m.requestProbe(0);
        m.tick(2 * MS);
        int wrs = 0;
        while (m.nextProbe(req)) {
            wrs++;
        }
        assertEquals(4, wrs);
        m.tick(22 * MS);
        m.onChunkCompleted(0, 512 * KIB, 20 * MS, ChunkOutcome.SUCCESS);
        long wrNanos = (long) (128 * KIB * 1e9 / 25e6);
        for (int i = 1; i <= wrs; i++) {
            long t = 22 * MS + i * wrNanos;
            m.tick(t);
            m.onProbeCompleted(0, 128 * KIB, t - 2 * MS, ChunkOutcome.SUCCESS);
        }
        // the elapsed-time rate (12.8 MB/s) would count the data's drain time
        assertEquals(25e6, m.probedCapacity(0), 25e6 * 0.01);
    }

    @Test
    void addedPathsWaitForRequestProbeWhenProbeOnPathAddedIsOff() {
        MonitorSettings s = defaults().with(Map.of("pathmonitor.probeOnPathAdded", "false"));
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", s, 128 * KIB, 0);
        m.onPathAdded(0);
        m.tick(5 * MS);
        ProbeRequest req = new ProbeRequest();
        assertFalse(m.nextProbe(req), "no probe on path added");
        assertTrue(m.usable(0), "the path is usable meanwhile");
        m.requestProbe(0);
        assertTrue(m.nextProbe(req));
        assertEquals(0, req.path());
        assertThrows(IllegalArgumentException.class,
                () -> defaults().with(Map.of("pathmonitor.probeOnPathAdded", "maybe")));
    }

    @Test
    void aPathsFirstProbingRepeatsWhileTheRateStillGrows() {
        MonitorSettings s = defaults().with(Map.of("pathmonitor.initialProbeFlows", 4));
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", s, 128 * KIB, 0);
        m.tick(0);
        m.onPathAdded(0);
        // a cold data path: the first flow moves 5 MB/s, then the link's 25 MB/s, twice
        double[] rates = {5e6, 25e6, 24e6, 25e6};
        long t = 0;
        int flows = 0;
        ProbeRequest req = new ProbeRequest();
        while (m.nextProbe(req)) {
            assertTrue(flows < rates.length, "at most initialProbeFlows flows");
            int wrs = 1;
            while (m.nextProbe(req)) {
                wrs++;
            }
            assertEquals(4, wrs);
            long wrNanos = (long) (128 * KIB * 1e9 / rates[flows]);
            for (int i = 0; i < wrs; i++) {
                t += wrNanos;
                m.tick(t);
                m.onProbeCompleted(0, 128 * KIB, wrNanos, ChunkOutcome.SUCCESS);
            }
            flows++;
            if (flows < 3) {
                assertEquals(0, m.probedCapacity(0), "nothing published before the first probing ends");
            }
        }
        assertEquals(3, flows, "stops once a flow gains no more than 10% over the best before");
        assertEquals(25e6, m.probedCapacity(0), 25e6 * 0.01);
        assertEquals(1, m.statistics(0, new PathStatistics()).probesCompleted);

        // later probes are single flows
        m.requestProbe(0);
        int wrs = 0;
        while (m.nextProbe(req)) {
            wrs++;
        }
        assertEquals(4, wrs);
        for (int i = 0; i < wrs; i++) {
            t += (long) (128 * KIB * 1e9 / 12.5e6);
            m.tick(t);
            m.onProbeCompleted(0, 128 * KIB, 1, ChunkOutcome.SUCCESS);
        }
        assertFalse(m.nextProbe(req));
        assertEquals(12.5e6, m.probedCapacity(0), 12.5e6 * 0.01);
    }

    @Test
    void withoutScratchNothingIsProbed() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        m.tick(5 * MS);
        assertFalse(m.nextProbe(new ProbeRequest()));
        assertEquals(0, m.probedCapacity(0));
    }

    @Test
    void probeWritesAreCappedByTheScratchRegion() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 100 * KIB, 0);
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        int n = 0;
        while (m.nextProbe(req)) {
            assertEquals(100 * KIB, req.bytes());
            n++;
        }
        assertEquals(6, n, "at least 512 KiB in 100 KiB WRITEs");
    }

    @Test
    void parallelProbeLimitSerialisesFlows() {
        MonitorSettings s = defaults().with(Map.of("pathmonitor.probeParallelPaths", 1));
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", s, 128 * KIB, 0);
        m.onPathAdded(0);
        m.onPathAdded(1);
        ProbeRequest req = new ProbeRequest();
        int n = 0;
        while (m.nextProbe(req)) {
            assertEquals(0, req.path());
            n++;
        }
        assertEquals(4, n);
        for (int i = 0; i < 4; i++) {
            m.tick((i + 1) * MS);
            m.onProbeCompleted(0, 128 * KIB, (i + 1) * MS, ChunkOutcome.SUCCESS);
        }
        assertTrue(m.nextProbe(req));
        assertEquals(1, req.path());
    }

    /** Drives one path with a window of chunks, completions polled in batches every pollNanos. */
    private static void drive(ConnectionPathMonitor m, Link link, long from, long to, long chunk, int window,
            long pollNanos) {
        long[] doneAt = new long[window];
        long[] postedAt = new long[window];
        for (int i = 0; i < window; i++) {
            postedAt[i] = from;
            doneAt[i] = link.completionTime(from, chunk);
            m.onChunkPosted(0, chunk);
        }
        for (long t = from + pollNanos; t <= to; t += pollNanos) {
            m.tick(t);
            for (int i = 0; i < window; i++) {
                if (doneAt[i] <= t) {
                    m.onChunkCompleted(0, chunk, t - postedAt[i], ChunkOutcome.SUCCESS);
                    postedAt[i] = t;
                    doneAt[i] = link.completionTime(t, chunk);
                    m.onChunkPosted(0, chunk);
                }
            }
        }
    }

    @Test
    void passiveEstimateFollowsRateWithinASecond() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        Link link = new Link(12.5e6, 100_000); // 100 Mbit/s
        drive(m, link, 0, 1000 * MS, 64 * KIB, 2, 200_000);
        assertEquals(12.5e6, m.estimatedRate(0), 12.5e6 * 0.05);
        link.bytesPerSec = 6.25e6;
        drive(m, link, 1000 * MS, 2000 * MS, 64 * KIB, 2, 200_000);
        assertEquals(6.25e6, m.estimatedRate(0), 6.25e6 * 0.10);
        assertTrue(m.smoothedLatencyNanos(0) > 0);
        assertEquals(PathHealth.HEALTHY, m.health(0));
    }

    @Test
    void batchedCompletionsDoNotInflateTheEstimate() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        // 8 chunks of 64 KiB in flight, polled only every 20 ms: several completions per poll
        drive(m, new Link(12.5e6, 100_000), 0, 1000 * MS, 64 * KIB, 8, 20 * MS);
        assertEquals(12.5e6, m.estimatedRate(0), 12.5e6 * 0.10);
    }

    @Test
    void errorsPauseThePathWithDoublingCooldown() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        for (int i = 0; i < 3; i++) {
            m.onChunkPosted(0, 4096);
            m.onChunkCompleted(0, 4096, 1000, ChunkOutcome.ERROR);
        }
        assertEquals(3, m.consecutiveErrors(0));
        assertEquals(PathHealth.ERRORS, m.health(0));
        assertFalse(m.usable(0));
        m.tick(100 * MS);
        assertTrue(m.usable(0), "first cooldown 100 ms");
        m.onChunkPosted(0, 4096);
        m.onChunkCompleted(0, 4096, 1000, ChunkOutcome.ERROR);
        m.tick(299 * MS);
        assertFalse(m.usable(0), "second cooldown 200 ms");
        m.tick(300 * MS);
        assertTrue(m.usable(0));
        m.onChunkPosted(0, 4096);
        m.onChunkCompleted(0, 4096, 1000, ChunkOutcome.SUCCESS);
        assertEquals(0, m.consecutiveErrors(0));
        assertEquals(4, m.statistics(0, new PathStatistics()).chunksFailed);
    }

    @Test
    void pathWithoutProgressIsStalled() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        m.onChunkPosted(0, 64 * KIB);
        m.tick(999 * MS);
        assertTrue(m.usable(0));
        m.tick(1001 * MS);
        assertEquals(PathHealth.STALLED, m.health(0));
        assertEquals(PathHealth.STALLED, m.statistics(0, new PathStatistics()).health);
        m.onChunkCompleted(0, 64 * KIB, 1001 * MS, ChunkOutcome.SUCCESS);
        assertTrue(m.usable(0));
    }

    @Test
    void slowPathWithLargeBacklogIsNotStalled() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        drive(m, new Link(1e6, 0), 0, 500 * MS, 64 * KIB, 1, MS);
        m.onChunkPosted(0, 2 * 1024 * KIB); // ~2 s at 1 MB/s
        long t = m.nowNanos() + 3000 * MS;
        m.tick(t);
        assertEquals(PathHealth.HEALTHY, m.health(0), "4x the 2 s drain time is allowed");
    }

    @Test
    void recoveringPathLeavesPlacementAndRejoinsOnlyAfterASuccessfulProbe() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        int issued = 0;
        while (m.nextProbe(req)) {
            issued++;
        }
        m.onPathState(0, PathState.RECOVERING);
        assertFalse(m.usable(0));
        assertEquals(PathHealth.RECOVERING, m.health(0));
        m.tick(10 * MS);
        m.onProbeCompleted(0, 128 * KIB, 10 * MS, ChunkOutcome.RETRY_EXCEEDED);
        for (int i = 1; i < issued; i++) {
            m.onProbeCompleted(0, 128 * KIB, 10 * MS, ChunkOutcome.FLUSHED);
        }
        assertEquals(0, m.inFlightBytes(0));
        assertEquals(1, m.statistics(0, new PathStatistics()).probesFailed);
        assertFalse(m.nextProbe(req), "no probe while recovering");
        m.onPathState(0, PathState.UP);
        assertFalse(m.usable(0), "on probation until probed");
        assertEquals(PathHealth.RECOVERING, m.health(0));
        assertEquals(0, m.consecutiveErrors(0));
        assertTrue(m.nextProbe(req), "re-probed on failback");
        m.tick(20 * MS);
        // the first flow fails: still not usable, a new flow is planned
        m.onProbeCompleted(0, 128 * KIB, 1 * MS, ChunkOutcome.ERROR);
        assertFalse(m.usable(0));
        assertEquals(2, m.statistics(0, new PathStatistics()).probesFailed);
        int wrs = 0;
        while (m.nextProbe(req)) {
            wrs++;
        }
        assertEquals(1, wrs, "after two failed flows the next is halved twice: one 128 KiB WRITE");
        for (int i = 0; i < wrs; i++) {
            m.tick(30 * MS + i * MS);
            assertFalse(m.usable(0), "not before the whole flow completed");
            m.onProbeCompleted(0, 128 * KIB, 5 * MS, ChunkOutcome.SUCCESS);
        }
        assertTrue(m.usable(0), "rejoins after a successful flow");
        assertEquals(PathHealth.HEALTHY, m.health(0));
        assertTrue(m.probedCapacity(0) > 0);
        assertEquals(0, m.unexpectedCompletions());
    }

    /** Completes path 0's connect-time flows, 100 ms apart, until one sets its capacity. @return the time */
    private static long probeUntilMeasured(ConnectionPathMonitor m) {
        long t = 0;
        while (m.statistics(0, new PathStatistics()).probesCompleted == 0) {
            t += 100 * MS;
            completeFlow(m, t, ChunkOutcome.SUCCESS);
        }
        return t;
    }

    /** Completes every probe WRITE handed out now with {@code outcome}. @return the flow's bytes */
    private static long completeFlow(ConnectionPathMonitor m, long at, ChunkOutcome outcome) {
        return completeFlow(m, at, outcome, 1 * MS);
    }

    /** As above, the WRITEs completing {@code spacing} apart. */
    private static long completeFlow(ConnectionPathMonitor m, long at, ChunkOutcome outcome, long spacing) {
        ProbeRequest req = new ProbeRequest();
        List<Long> wrs = new ArrayList<>();
        while (m.nextProbe(req)) {
            wrs.add(req.bytes());
        }
        long flow = 0;
        for (int i = 0; i < wrs.size(); i++) {
            m.tick(at + (i + 1) * spacing);
            m.onProbeCompleted(0, wrs.get(i), spacing, outcome);
            flow += wrs.get(i);
        }
        return flow;
    }

    @Test
    void failedFlowsHalveTheNextFlowAndSuccessesGrowItBack() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.onPathAdded(0);
        long t = 0;
        assertEquals(512 * KIB, completeFlow(m, t, ChunkOutcome.SUCCESS), "the first flow has the configured size");
        while (m.statistics(0, new PathStatistics()).probesCompleted == 0) {
            t += 100 * MS; // warm-up flows
            completeFlow(m, t, ChunkOutcome.SUCCESS);
        }
        double capacity = m.probedCapacity(0);
        assertTrue(capacity > 0);

        // the link stops taking a burst of 512 KiB: the path fails; it carried flows before, so it
        // rejoins at once and its next data chunk is the probe
        m.onPathState(0, PathState.RECOVERING);
        m.onPathState(0, PathState.UP);
        assertTrue(m.usable(0), "a loss on a path that carried data: no probation");
        assertFalse(m.nextProbe(new ProbeRequest()), "and no probe flow");
        // that chunk fails too, with nothing carried since the repair: probation
        m.onChunkPosted(0, 512 * KIB);
        m.onChunkCompleted(0, 512 * KIB, 5 * MS, ChunkOutcome.RETRY_EXCEEDED);
        m.onPathState(0, PathState.RECOVERING);
        m.onPathState(0, PathState.UP);
        assertFalse(m.usable(0), "failed again before carrying anything: on probation");
        long[] expected = {512 * KIB, 256 * KIB, 128 * KIB, 64 * KIB, 32 * KIB, 16 * KIB, 8 * KIB, 4 * KIB, 4 * KIB};
        for (long flow : expected) {
            t += 60_000 * MS; // past any error cooldown
            m.tick(t);
            assertEquals(flow, completeFlow(m, t, ChunkOutcome.RETRY_EXCEEDED), "flow after failures");
            assertFalse(m.usable(0), "still on probation");
        }
        t += 60_000 * MS;
        m.tick(t);
        assertEquals(4 * KIB, completeFlow(m, t, ChunkOutcome.SUCCESS));
        assertTrue(m.usable(0), "a smaller flow that gets through ends probation");
        assertEquals(capacity, m.probedCapacity(0), "only a full-size flow sets the probed capacity");

        // the link is half as fast now: the small flows do not record it, the first full one does
        long[] growing = {8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB};
        for (long flow : growing) {
            t += 100 * MS;
            m.tick(t);
            m.requestProbe(0);
            assertEquals(capacity, m.probedCapacity(0), "not from a flow of " + flow / 2 + " bytes");
            assertEquals(flow, completeFlow(m, t, ChunkOutcome.SUCCESS, 2 * MS), "flow after successes");
        }
        assertEquals(capacity / 2, m.probedCapacity(0), capacity / 100, "the full-size flow measured again");
        assertEquals(0, m.unexpectedCompletions());
    }

    @Test
    void probationAfterADataChunkFailedIsOneWriteOfTheLastChunkThePathTook() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.onPathAdded(0);
        long t = probeUntilMeasured(m);
        double capacity = m.probedCapacity(0);
        // a shallow buffer: 60000-byte data chunks get through, a larger one fails the QP
        for (int i = 0; i < 8; i++) {
            m.onChunkPosted(0, 60_000);
            m.onChunkCompleted(0, 60_000, 5 * MS, ChunkOutcome.SUCCESS);
        }
        m.onChunkPosted(0, 80_000);
        m.onChunkCompleted(0, 80_000, 5 * MS, ChunkOutcome.RETRY_EXCEEDED);
        m.onPathState(0, PathState.RECOVERING);
        m.onPathState(0, PathState.UP);
        assertTrue(m.usable(0), "the path carried data before the loss: it rejoins at once");
        // its next chunk fails as well: nothing carried since the repair
        m.onChunkPosted(0, 60_000);
        m.onChunkCompleted(0, 60_000, 5 * MS, ChunkOutcome.RETRY_EXCEEDED);
        m.onPathState(0, PathState.RECOVERING);
        m.onPathState(0, PathState.UP);
        assertFalse(m.usable(0), "on probation after the second repair");
        t += 60_000 * MS;
        m.tick(t);
        ProbeRequest req = new ProbeRequest();
        assertTrue(m.nextProbe(req));
        assertEquals(60_000, req.bytes(), "one WRITE of the last chunk the path took");
        assertFalse(m.nextProbe(req), "and no more");
        m.onProbeCompleted(0, 60_000, 5 * MS, ChunkOutcome.RETRY_EXCEEDED);
        assertFalse(m.usable(0));
        // it failed too (the path got worse): the next one is half of it
        m.onPathState(0, PathState.RECOVERING);
        m.onPathState(0, PathState.UP);
        t += 60_000 * MS;
        m.tick(t);
        assertEquals(30_000, completeFlow(m, t, ChunkOutcome.SUCCESS), "half after a failed one");
        assertTrue(m.usable(0), "a flow that gets through ends probation");
        assertEquals(capacity, m.probedCapacity(0), "a probation flow below the configured size measures nothing");
        // a probe not on probation (requested) still has the size the back-off allows, not the chunk's
        m.requestProbe(0);
        t += 100 * MS;
        m.tick(t);
        assertEquals(60_000, completeFlow(m, t, ChunkOutcome.SUCCESS), "doubled from the last flow");
        assertEquals(0, m.unexpectedCompletions());
    }

    @Test
    void probationOnASideWithoutDataIsTheLastFlowThatGotThrough() {
        // the receiving side of a one-way transfer: no data chunk of its own on the path
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.onPathAdded(0);
        long t = 0;
        for (long flow : new long[] {512 * KIB, 256 * KIB, 128 * KIB}) {
            assertEquals(flow, completeFlow(m, t, ChunkOutcome.RETRY_EXCEEDED), "a shallow buffer: flows fail");
            t += 60_000 * MS; // past the error cooldown
            m.tick(t);
            m.requestProbe(0);
        }
        assertEquals(64 * KIB, completeFlow(m, t, ChunkOutcome.SUCCESS));
        for (int round = 0; round < 3; round++) {
            m.onPathState(0, PathState.RECOVERING);
            m.onPathState(0, PathState.UP);
            assertTrue(m.usable(0), "a flow got through since the last UP: no probation, round " + round);
            // the peer repairs the path again (its loss): this side has no data on it, nothing at stake
            m.onPathState(0, PathState.RECOVERING);
            m.onPathState(0, PathState.UP);
            assertTrue(m.usable(0), "no data of this side posted since the last UP: no probation, round " + round);
            assertFalse(m.nextProbe(new ProbeRequest()), "and no probe flow, round " + round);
            // this side's first data chunk fails: nothing carried since the repair, a broken link
            m.onChunkPosted(0, 64 * KIB);
            m.onChunkCompleted(0, 64 * KIB, 5 * MS, ChunkOutcome.RETRY_EXCEEDED);
            m.onPathState(0, PathState.RECOVERING);
            m.onPathState(0, PathState.UP);
            assertFalse(m.usable(0), "its data failed before anything got through: on probation, round " + round);
            t += 60_000 * MS;
            m.tick(t);
            ProbeRequest req = new ProbeRequest();
            assertTrue(m.nextProbe(req));
            assertEquals(64 * KIB, req.bytes(), "probation: one WRITE of the flow that got through, round " + round);
            assertFalse(m.nextProbe(req));
            m.onProbeCompleted(0, req.bytes(), 5 * MS, ChunkOutcome.SUCCESS);
            assertTrue(m.usable(0));
        }
        assertEquals(0, m.unexpectedCompletions());
    }

    @Test
    void lossesOnAPathThatKeepsCarryingDataNeverPutItOnProbation() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 128 * KIB, 0);
        m.onPathAdded(0);
        long t = probeUntilMeasured(m);
        long probes = m.statistics(0, new PathStatistics()).probesCompleted;
        ProbeRequest req = new ProbeRequest();
        // retry 0 on a shallow buffer: every few chunks one loses a packet and fails the QP
        for (int loss = 0; loss < 5; loss++) {
            for (int i = 0; i < 3; i++) {
                m.onChunkPosted(0, 64 * KIB);
                m.onChunkCompleted(0, 64 * KIB, 5 * MS, ChunkOutcome.SUCCESS);
            }
            m.onChunkPosted(0, 64 * KIB);
            m.onChunkCompleted(0, 64 * KIB, 5 * MS, ChunkOutcome.RETRY_EXCEEDED);
            m.onPathState(0, PathState.RECOVERING);
            assertFalse(m.usable(0), "out while its QP is repaired, loss " + loss);
            m.onPathState(0, PathState.UP);
            assertTrue(m.usable(0), "back at once after the repair, loss " + loss);
            assertEquals(PathHealth.HEALTHY, m.health(0));
            assertFalse(m.nextProbe(req), "no probe flow on the lossy path, loss " + loss);
        }
        assertEquals(probes, m.statistics(0, new PathStatistics()).probesCompleted);

        // a path reported DOWN (its address gone) is on probation when it comes back, carried or not
        m.onChunkPosted(0, 64 * KIB);
        m.onChunkCompleted(0, 64 * KIB, 5 * MS, ChunkOutcome.SUCCESS);
        m.onPathState(0, PathState.DOWN);
        m.onPathState(0, PathState.UP);
        assertFalse(m.usable(0), "after DOWN: on probation");
        t += 60_000 * MS;
        m.tick(t);
        assertTrue(m.nextProbe(req), "and probed");
    }

    @Test
    void withoutProbingAPathRejoinsAtOnce() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        m.onPathState(0, PathState.RECOVERING);
        m.onPathState(0, PathState.UP);
        assertTrue(m.usable(0));
    }

    @Test
    void periodicProbesOnlyOnIdlePaths() {
        MonitorSettings s = defaults().with(Map.of("pathmonitor.probeIntervalMillis", "50"));
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", s, 128 * KIB, 0);
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        while (m.nextProbe(req)) {
            m.onProbeCompleted(0, req.bytes(), 0, ChunkOutcome.SUCCESS);
        }
        m.onChunkPosted(0, 4096);
        m.tick(60 * MS);
        assertFalse(m.nextProbe(req), "busy path: passive estimation suffices");
        m.onChunkCompleted(0, 4096, MS, ChunkOutcome.SUCCESS);
        m.tick(62 * MS);
        assertTrue(m.nextProbe(req));
    }

    @Test
    void accountingErrorsAreCountedNotPropagated() {
        ConnectionPathMonitor m = new ConnectionPathMonitor("c1", defaults(), 0, 0);
        m.onPathAdded(0);
        m.onChunkCompleted(0, 4096, 1000, ChunkOutcome.SUCCESS);
        assertEquals(0, m.inFlightBytes(0));
        assertEquals(0, m.inFlightChunks(0));
        assertEquals(1, m.unexpectedCompletions());
        assertThrows(IndexOutOfBoundsException.class, () -> m.onChunkPosted(3, 1));
        assertThrows(IllegalArgumentException.class, () -> m.onPathAdded(5));
        assertFalse(m.usable(7));
    }

    @Test
    void settingsValidateOverrides() {
        assertThrows(IllegalArgumentException.class,
                () -> defaults().with(Map.of("pathmonitor.probeFlowBytes", 4096)), "below the paper's 512 KiB");
        assertThrows(IllegalArgumentException.class, () -> defaults().with(Map.of("pathmonitor.errorThreshold", "x")));
        MonitorSettings s = defaults().with(Map.of("pathmonitor.probeFlowBytes", 1 << 20, "other.key", "ignored"));
        assertEquals(1 << 20, s.probeFlowBytes());
        assertEquals(200 * MS, s.rateTimeConstantNanos());
    }
}
