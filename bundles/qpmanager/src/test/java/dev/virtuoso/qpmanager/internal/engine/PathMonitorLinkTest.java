package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * {@link PathMonitorLink} on its own, on the test's thread ({@link LinkRig}): the core's view without
 * a monitor, detach and monitor faults, ticks and usability, path events, the connect-time probe
 * stagger, the statistics overlay and close.
 */
class PathMonitorLinkTest {
    private LinkRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new LinkRig();
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    // ---------------------------------------------------------------- without a rig.monitor

    @Test
    void withoutAMonitorTheCoresViewServesAndTheConnectingSideStillSaysProbesDone() throws Exception {
        PathMonitorLink l = rig.link(false, true, 2);
        assertSame(rig.table, l.view());
        assertFalse(l.monitored());
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS), "nothing to detach from");
        assertEquals(0, l.tick(System.nanoTime()));
        assertTrue(l.timersPending(), "PROBES_DONE not yet written");
        assertEquals(1, l.probe(), "PROBES_DONE written");
        assertEquals(List.of(Protocol.PROBES_DONE), rig.framesWritten());
        assertFalse(l.timersPending());
        assertEquals(0, l.probe(), "written once");
        assertEquals(List.of(), rig.framesWritten());
        List<PathStats> core = List.of(rig.stats(0));
        assertSame(core, l.overlay(core));
        assertFalse(l.requestDetach(rig.factory), "no monitor, no factory");
        assertFalse(l.detachPending());
        l.close();
        assertEquals(1, rig.scratchClosed);
    }

    @Test
    void theMonitorsProbesObeyTheCongestionPolicysChunkLimits() throws Exception {
        rig.link(false, true, 0);
        assertNull(rig.monitor.limits, "no monitor bound, none told");
        rig.link(true, true, 0);
        assertEquals(1002, rig.monitor.limits.maxChunkBytes(2), "the decomposition's limit for the path");
        assertEquals(4, rig.monitor.limits.maxOutstandingChunks(1));
        rig.monitor.throwOn = "chunkLimits";
        PathMonitorLink l = rig.link(true, true, 0);
        assertEquals(1, l.monitorFaults());
        assertTrue(l.detachPending());
    }

    @Test
    void monitorPropertiesDeferTheAcceptingSidesProbesOnly() {
        Map<String, Object> props = Map.of("lb.x", 1);
        assertSame(props, PathMonitorLink.monitorProperties(props, true));
        Map<String, Object> accepting = PathMonitorLink.monitorProperties(props, false);
        assertEquals(Map.of("lb.x", 1, "pathmonitor.probeOnPathAdded", Boolean.FALSE), accepting);
        assertEquals(Map.of("lb.x", 1), props, "the connection's own properties are not changed");
    }

    // ---------------------------------------------------------------- detach and faults

    @Test
    void detachHappensAtTheNextTickOnlyForTheMonitorsOwnFactory() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        assertSame(rig.monitor, l.view());
        assertFalse(l.requestDetach(null));
        assertFalse(l.requestDetach((id, p, b) -> rig.monitor), "another factory");
        assertFalse(l.detachPending());
        assertFalse(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertTrue(l.requestDetach(rig.factory));
        assertTrue(l.detachPending());
        assertTrue(l.timersPending(), "a pending detach needs a tick");
        assertTrue(l.monitored(), "still bound until the engine's tick");
        assertEquals(1, l.tick(5));
        assertEquals(List.of("close"), rig.monitor.events, "closed, not ticked");
        assertEquals(List.of("policyView table", "loadBalancer null", "congestionAvoidance null"), rig.decomposition,
                "the sessions re-created over the core's view");
        assertFalse(l.monitored());
        assertSame(rig.table, l.view());
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertFalse(l.detachPending());
        assertEquals(0, l.tick(6));
        l.onChunkPosted(0, 100);
        l.pathState(0, PathState.RECOVERING);
        l.close();
        assertEquals(List.of("close"), rig.monitor.events, "never called again, not closed twice");
        assertEquals(0, l.monitorFaults());
    }

    @Test
    void aMonitorThatThrowsIsNotCalledAgainAndIsReplacedAtTheNextTick() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.monitor.throwOn = "tick";
        assertEquals(0, l.tick(10));
        assertEquals(1, l.monitorFaults());
        assertTrue(l.describe().contains("lastFault=java.lang.IllegalStateException: scripted tick"), l.describe());
        rig.monitor.throwOn = null;
        rig.monitor.events.clear();
        l.onChunkPosted(0, 100);
        l.onChunkCompleted(0, 100, 5, ChunkOutcome.SUCCESS);
        l.pathAdded(1);
        l.pathState(0, PathState.UP);
        rig.monitor.probes.add(new long[] {0, 100});
        assertEquals(1, l.probe(), "PROBES_DONE only: no probe asked of a faulty monitor");
        assertEquals(1, rig.monitor.probes.size());
        assertEquals(List.of(), rig.posted);
        assertEquals(List.of(), rig.monitor.events);
        List<PathStats> core = List.of(rig.stats(0));
        assertSame(core, l.overlay(core), "the core's figures");
        assertEquals(1, l.tick(11), "detached");
        assertEquals(List.of("close"), rig.monitor.events);
        assertEquals(List.of("policyView table", "loadBalancer null", "congestionAvoidance null"), rig.decomposition);
        assertEquals(1, l.monitorFaults());
    }

    @Test
    void everyHookThatThrowsCountsAFault() throws Exception {
        String[] hooks = {"onChunkPosted", "onChunkCompleted", "onPathState", "statistics", "nextProbe",
            "onPathAdded", "usable"};
        rig.table.add();
        for (String hook : hooks) {
            rig.monitor.throwOn = hook;
            rig.monitor.events.clear();
            PathMonitorLink l = new PathMonitorLink("c" + hook, rig.table, rig.paths, rig.scratch(),
                    new ScratchRegion(LinkRig.PEER_ADDR, LinkRig.RKEY, LinkRig.PEER_SCRATCH), rig.monitor, rig.factory, rig.writer, true, null);
            switch (hook) {
                case "onChunkPosted" -> l.onChunkPosted(0, 1);
                case "onChunkCompleted" -> l.onChunkCompleted(0, 1, 1, ChunkOutcome.SUCCESS);
                case "onPathState" -> l.pathState(0, PathState.UP);
                case "statistics" -> {
                    List<PathStats> core = List.of(rig.stats(0));
                    assertSame(core, l.overlay(core), "the core's figures when the monitor fails");
                }
                case "nextProbe" -> assertEquals(1, l.probe(), "no probe; PROBES_DONE, as no flow runs");
                case "onPathAdded" -> l.pathAdded(0);
                case "usable" -> {
                    rig.monitor.paths = 1;
                    assertEquals(0, l.tick(1), "no change reported from a failing monitor");
                }
                default -> throw new AssertionError(hook);
            }
            assertEquals(1, l.monitorFaults(), hook);
            assertTrue(l.detachPending(), hook);
        }
    }

    @Test
    void aMonitorThatFailsToCloseCountsAFaultAndTheScratchRegionStillCloses() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.monitor.throwOn = "close";
        l.close();
        assertEquals(1, l.monitorFaults());
        assertEquals(1, rig.scratchClosed);
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertFalse(l.monitored());

        PathMonitorLink d = rig.link(true, true, 0);
        assertTrue(d.requestDetach(rig.factory));
        assertEquals(1, d.tick(1), "detached although close failed");
        assertEquals(1, d.monitorFaults());
        assertTrue(d.awaitDetached(0, TimeUnit.MILLISECONDS));
    }

    // ---------------------------------------------------------------- ticks and usability

    @Test
    void aTickAdvancesTheMonitorAndReportsAChangeOfUsabilityOnce() throws Exception {
        PathMonitorLink l = rig.link(true, true, 3);
        rig.monitor.paths = 3;
        assertEquals(0, l.tick(100), "nothing usable, nothing changed");
        assertEquals(List.of("tick 100"), rig.monitor.events);
        rig.monitor.usable[1] = true;
        assertEquals(1, l.tick(200));
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertEquals(0, l.tick(300), "the same usability is no change");
        assertEquals(1, rig.decomposition.size());
        rig.monitor.usable[1] = false;
        rig.monitor.usable[2] = true;
        assertEquals(1, l.tick(400));
        assertEquals(2, rig.decomposition.size(), "two paths changed, told once");
        rig.monitor.paths = 2;
        rig.monitor.usable[2] = false;
        assertEquals(0, l.tick(500), "a path beyond the monitor's count is not looked at");
    }

    @Test
    void aPathBeyondTheCoresTableIsNotLookedAt() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.monitor.paths = 3;
        rig.monitor.usable[1] = true;
        assertEquals(0, l.tick(1), "path 1 is the monitor's, not yet the table's");
        rig.monitor.usable[0] = true;
        assertEquals(1, l.tick(2));
    }

    // ---------------------------------------------------------------- path events

    @Test
    void pathsAreAnnouncedOnceAndAReusedSlotComesBackUp() throws Exception {
        PathMonitorLink l = rig.link(true, true, 0);
        for (int i = 0; i < 3; i++) {
            rig.table.add();
        }
        rig.monitor.paths = 3;
        rig.monitor.usable[0] = true;
        l.pathAdded(0);
        l.pathAdded(1);
        assertEquals(List.of("added 0", "added 1"), rig.monitor.events);
        l.pathAdded(0);
        assertEquals(List.of("added 0", "added 1", "state 0 UP"), rig.monitor.events, "a reused slot");
        l.pathAdded(2);
        assertEquals("added 2", rig.monitor.events.get(3));
        assertEquals(0, l.tick(1), "the usability seen at pathAdded is no change");
        l.pathState(1, PathState.RECOVERING);
        assertEquals("state 1 RECOVERING", rig.monitor.events.get(5));
        rig.monitor.usable[1] = true;
        l.pathState(1, PathState.UP);
        assertEquals(0, l.tick(2), "the usability seen at pathState is no change");
        assertEquals(List.of(), rig.decomposition);
    }

    @Test
    void chunkEventsReachTheMonitor() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        l.onChunkPosted(0, 4096);
        l.onChunkCompleted(0, 4096, 1234, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(List.of("posted 0 4096", "completed 0 4096 1234 RETRY_EXCEEDED"), rig.monitor.events);
    }

    @Test
    void theAcceptingSideProbesAnAddedPathOnlyOnceItsStaggerIsOver() throws Exception {
        PathMonitorLink l = rig.link(true, false, 0);
        l.pathAdded(0);
        assertEquals(List.of("added 0"), rig.monitor.events, "waiting for PROBES_DONE: no probe yet");
        l.onPeerProbesDone(ByteBuffer.allocate(0));
        l.tick(1);
        rig.monitor.events.clear();
        l.pathAdded(1);
        assertEquals(List.of("added 1", "requestProbe 1"), rig.monitor.events);

        PathMonitorLink c = rig.link(true, true, 0);
        assertEquals(1, c.probe(), "the connecting side says PROBES_DONE at once without probes");
        c.pathAdded(0);
        assertEquals(List.of("added 0"), rig.monitor.events, "no probe requested by the connecting side");
    }

    // ---------------------------------------------------------------- probe stagger

    @Test
    void theConnectingSideSaysProbesDoneWhenItsFlowsAreOver() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.monitor.probes.add(new long[] {0, 1000});
        assertEquals(1, l.probe());
        assertEquals(List.of(), rig.framesWritten(), "a probe in flight: not over");
        assertTrue(l.timersPending());
        assertEquals(0, l.probe());
        assertEquals(List.of(), rig.framesWritten(), "still in flight");
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(1, l.probe(), "over: PROBES_DONE");
        assertEquals(List.of(Protocol.PROBES_DONE), rig.framesWritten());
        assertFalse(l.timersPending());
        rig.monitor.probes.add(new long[] {1, 1000});
        assertEquals(1, l.probe(), "a later probe");
        assertEquals(List.of(), rig.framesWritten(), "PROBES_DONE only once");
        assertTrue(l.timersPending(), "a probe in flight");
    }

    @Test
    void probesDoneWaitsForRoomInTheControlRing() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        int filler = rig.fillRing();
        assertEquals(0, l.probe());
        assertTrue(l.timersPending(), "PROBES_DONE still to write");
        assertEquals(0, l.probe(), "still no room");
        rig.channel.outbound.commitRead(filler);
        assertEquals(1, l.probe());
        assertEquals(List.of(Protocol.PROBES_DONE), rig.framesWritten());
        assertFalse(l.timersPending());

        PathMonitorLink detached = rig.link(false, true, 0);
        filler = rig.fillRing();
        assertEquals(0, detached.probe());
        assertTrue(detached.timersPending());
        rig.channel.outbound.commitRead(filler);
        assertEquals(1, detached.probe(), "without a monitor too");
        assertEquals(List.of(Protocol.PROBES_DONE), rig.framesWritten());
    }

    @Test
    void theAcceptingSideProbesItsUpPathsWhenProbesDoneArrives() throws Exception {
        PathMonitorLink l = rig.link(true, false, 3);
        rig.monitor.paths = 2;
        rig.table.state(1, PathState.RECOVERING);
        assertTrue(l.timersPending());
        assertEquals(0, l.probe(), "the accepting side writes no PROBES_DONE");
        assertEquals(List.of(), rig.framesWritten());
        l.onPeerProbesDone(ByteBuffer.allocate(0));
        assertTrue(l.peerProbesDone());
        l.tick(System.nanoTime());
        assertEquals(List.of("requestProbe 0", "tick"), rig.monitor.events.stream()
                .map(e -> e.startsWith("tick") ? "tick" : e).toList(), "UP paths the monitor knows, then the tick");
        assertEquals(0, l.peerProbesTimeouts());
        assertFalse(l.timersPending());
        rig.monitor.events.clear();
        l.tick(System.nanoTime());
        assertEquals(1, rig.monitor.events.size(), "probed once: " + rig.monitor.events);
    }

    @Test
    void theAcceptingSideStopsWaitingForProbesDoneAtItsDeadline() throws Exception {
        long before = System.nanoTime();
        PathMonitorLink l = rig.link(true, false, 1);
        long after = System.nanoTime();
        rig.monitor.paths = 1;
        l.tick(before + PathMonitorLink.PEER_PROBES_WAIT_NANOS - 1);
        assertEquals(0, rig.monitor.events.stream().filter(e -> e.startsWith("requestProbe")).count());
        assertTrue(l.timersPending());
        l.tick(after + PathMonitorLink.PEER_PROBES_WAIT_NANOS);
        assertTrue(rig.monitor.events.contains("requestProbe 0"), rig.monitor.events.toString());
        assertEquals(1, l.peerProbesTimeouts());
        assertFalse(l.peerProbesDone());
        assertFalse(l.timersPending());
        assertTrue(l.describe().contains("peerProbesTimeouts=1"), l.describe());

        PathMonitorLink none = rig.link(false, false, 1);
        none.tick(System.nanoTime() + PathMonitorLink.PEER_PROBES_WAIT_NANOS + 1);
        assertEquals(1, none.peerProbesTimeouts(), "counted without a monitor too");
        assertFalse(none.timersPending());
    }

    @Test
    void theDeferredProbesOfAMonitorThatThrowsCountAFault() throws Exception {
        PathMonitorLink l = rig.link(true, false, 1);
        rig.monitor.paths = 1;
        rig.monitor.throwOn = "requestProbe";
        l.onPeerProbesDone(ByteBuffer.allocate(0));
        assertEquals(1, l.tick(1), "the fault detaches the monitor in the same tick");
        assertEquals(1, l.monitorFaults());
        assertEquals(List.of("close"), rig.monitor.events, "not ticked after its fault");
        assertFalse(l.monitored());
        assertEquals("policyView table", rig.decomposition.get(0));
    }

    @Test
    void probesDoneIsRefusedWithABodyOnTheConnectingSideAndTwice() throws Exception {
        PathMonitorLink accepting = rig.link(true, false, 0);
        assertThrows(ProtocolException.class, () -> accepting.onPeerProbesDone(ByteBuffer.allocate(1)));
        assertFalse(accepting.peerProbesDone());
        accepting.onPeerProbesDone(ByteBuffer.allocate(0));
        ProtocolException twice = assertThrows(ProtocolException.class,
                () -> accepting.onPeerProbesDone(ByteBuffer.allocate(0)));
        assertEquals("duplicate PROBES_DONE", twice.getMessage());
        PathMonitorLink connecting = rig.link(true, true, 0);
        ProtocolException wrongSide = assertThrows(ProtocolException.class,
                () -> connecting.onPeerProbesDone(ByteBuffer.allocate(0)));
        assertEquals("PROBES_DONE sent to the connecting side", wrongSide.getMessage());
        assertFalse(connecting.peerProbesDone());
    }

    // ---------------------------------------------------------------- statistics and end

    @Test
    void theMonitorsFiguresOverlayTheCoresStatistics() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.monitor.paths = 1;
        PathStats core0 = rig.stats(0);
        PathStats core1 = rig.stats(1);
        List<PathStats> out = l.overlay(List.of(core0, core1));
        assertEquals(2, out.size());
        PathStats s = out.get(0);
        assertEquals(0, s.pathId());
        assertEquals(core0.localAddress(), s.localAddress());
        assertEquals(core0.remoteAddress(), s.remoteAddress());
        assertEquals(PathState.UP, s.state());
        assertEquals(1000, s.bytesCompleted());
        assertEquals(10, s.chunksCompleted());
        assertEquals(2, s.chunksFailed());
        assertEquals(300, s.inFlightBytes());
        assertEquals(4e9, s.estimatedRate());
        assertEquals(5e9, s.probedCapacity());
        assertEquals(7000, s.smoothedLatencyNanos());
        assertEquals(99, s.retransmissions(), "the core's");
        assertSame(core1, out.get(1), "a path the monitor does not know keeps the core's figures");
    }

    @Test
    void closeClosesTheMonitorOnceAndTheScratchRegion() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        l.close();
        assertEquals(List.of("close"), rig.monitor.events);
        assertEquals(1, rig.scratchClosed);
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertFalse(l.monitored());
        assertTrue(l.describe().startsWith("monitor=none"), l.describe());
        assertTrue(l.describe().endsWith("connection=c1"), l.describe());
        assertEquals(0, l.monitorFaults());
    }
}
