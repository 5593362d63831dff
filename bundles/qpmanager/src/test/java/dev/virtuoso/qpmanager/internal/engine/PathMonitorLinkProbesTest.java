package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.WrId;

/**
 * {@link PathMonitorLink}'s probe WRITEs on the test's thread ({@link LinkRig}): what is posted and
 * refused, completions, abandoned paths.
 */
class PathMonitorLinkProbesTest {
    private LinkRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new LinkRig();
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    // ---------------------------------------------------------------- probe WRITEs

    @Test
    void aProbeIsAnRdmaWriteFromTheScratchRegionToThePeers() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.monitor.probes.add(new long[] {1, 3000});
        l.tick(1_000);
        assertEquals(1, l.probe());
        assertEquals(1, rig.posted.size());
        IbvSendWr w = rig.posted.get(0);
        assertEquals(IbvWrOpcode.RDMA_WRITE, w.opcode());
        assertEquals(WrIdTags.PROBE, WrId.tag(w.wrId()));
        assertEquals(1, w.numSge());
        assertEquals(LinkRig.SCRATCH_ADDR, w.sge(0).addr());
        assertEquals(3000, w.sge(0).length());
        assertEquals(LinkRig.LKEY, w.sge(0).lkey());
        assertEquals(LinkRig.PEER_ADDR, w.remoteAddr());
        assertEquals(LinkRig.RKEY, w.rkey());
        assertEquals(1, l.probesPosted());
        assertEquals(0, l.probesRefused());
        assertTrue(l.describe().contains("probesPosted=1 probesRefused=0"), l.describe());
        assertTrue(l.describe().contains("probesInFlight=1"), l.describe());

        rig.monitor.capacity = 5e9;
        l.tick(251_000);
        l.onProbeCompletion(rig.wc(w.wrId(), IbvWcStatus.SUCCESS));
        assertEquals(List.of("probeCompleted 1 3000 250000 SUCCESS"), rig.monitor.probeEvents());
        assertEquals(5e9, rig.table.probedCapacity(1), "kept in the core's view");
        assertEquals(0.0, rig.table.probedCapacity(0));
        assertEquals(0, l.probeErrors());
        assertTrue(l.describe().contains("probesInFlight=0"), l.describe());
    }

    @Test
    void aProbeCompletionWithoutACapacityLeavesTheCoresFigure() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.table.probedCapacity(0, 7e8);
        rig.monitor.probes.add(new long[] {0, 100});
        l.probe();
        rig.monitor.capacity = 0;
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(7e8, rig.table.probedCapacity(0));
    }

    @Test
    void aProbeCompletionIsNeverEarlierThanItsPost() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        l.tick(5_000);
        rig.monitor.probes.add(new long[] {0, 100});
        l.probe();
        l.tick(4_000);
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(List.of("probeCompleted 0 100 0 SUCCESS"), rig.monitor.probeEvents());
    }

    @Test
    void atMost64ProbesArePostedInOneCycle() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        for (int i = 0; i < 70; i++) {
            rig.monitor.probes.add(new long[] {0, 64});
        }
        assertEquals(64, l.probe());
        assertEquals(64, rig.posted.size());
        assertEquals(6, rig.monitor.probes.size(), "the rest waits for the next cycle");
        assertEquals(6, l.probe());
        assertEquals(70, l.probesPosted());
    }

    @Test
    void probesTheLinkCannotPostAreReportedAsFailedAtOnce() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.table.state(1, PathState.RECOVERING);
        long[][] refused = {{0, 0}, {0, -1}, {0, LinkRig.SCRATCH + 1}, {-1, 100}, {2, 100}, {1, 100}};
        for (long[] r : refused) {
            rig.monitor.probes.add(r);
        }
        rig.monitor.probes.add(new long[] {0, LinkRig.SCRATCH});
        assertEquals(7, l.probe());
        assertEquals(1, rig.posted.size(), "only the probe of the whole scratch region on an UP path");
        assertEquals(LinkRig.SCRATCH, rig.posted.get(0).sge(0).length());
        assertEquals(1, l.probesPosted());
        assertEquals(6, l.probesRefused());
        assertEquals(List.of("probeCompleted 0 0 0 ERROR", "probeCompleted 0 -1 0 ERROR",
                "probeCompleted 0 4097 0 ERROR", "probeCompleted -1 100 0 ERROR", "probeCompleted 2 100 0 ERROR",
                "probeCompleted 1 100 0 ERROR"), rig.monitor.probeEvents());
        assertEquals(List.of("pathsChanged"), rig.decomposition, "the path not UP: the placement is told");
    }

    @Test
    void theSmallerScratchRegionBoundsAProbe() throws Exception {
        PathMonitorLink l = new PathMonitorLink("c1", rig.table, rig.paths, rig.scratch(), new ScratchRegion(LinkRig.PEER_ADDR, LinkRig.RKEY, 2048),
                rig.monitor, rig.factory, rig.writer, true, null);
        l.attach(rig.decomp, null);
        rig.paths.events(l);
        rig.paths.addEstablished(new PathSlot(InetAddress.getByName("10.0.1.1"), InetAddress.getByName("10.0.2.1"), 0,
                rig.qp(), 1, 64, null));
        rig.monitor.probes.add(new long[] {0, 2049});
        rig.monitor.probes.add(new long[] {0, 2048});
        l.probe();
        assertEquals(1, l.probesRefused());
        assertEquals(1, rig.posted.size());
        assertEquals(2048, rig.posted.get(0).sge(0).length());
    }

    @Test
    void aPostThatFindsTheQpBrokenFailsThePath() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.postErrno = VerbsException.EINVAL;
        rig.monitor.probes.add(new long[] {1, 100});
        assertEquals(1, l.probe());
        assertEquals(0, l.probesPosted());
        assertEquals(1, l.probesRefused());
        assertEquals(PathState.RECOVERING, rig.table.state(1));
        assertEquals(PathState.UP, rig.table.state(0));
        assertEquals(1, rig.paths.pathFailures());
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertEquals(List.of("state 1 RECOVERING", "probeCompleted 1 100 0 ERROR"), rig.monitor.events);
        assertTrue(l.describe().contains("probesInFlight=0"), "the slot is released: " + l.describe());
    }

    @Test
    void aFullSendQueueRefusesTheProbeButLeavesThePathUp() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.postErrno = VerbsException.ENOMEM;
        rig.monitor.probes.add(new long[] {0, 100});
        l.probe();
        assertEquals(1, l.probesRefused());
        assertEquals(PathState.UP, rig.table.state(0));
        assertEquals(List.of(), rig.decomposition);
        assertEquals(List.of("probeCompleted 0 100 0 ERROR"), rig.monitor.probeEvents());
    }

    @Test
    void aFullProbeTableRefusesFurtherProbes() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        for (int i = 0; i < 257; i++) {
            rig.monitor.probes.add(new long[] {0, 8});
        }
        for (int i = 0; i < 5; i++) {
            l.probe();
        }
        assertEquals(256, l.probesPosted());
        assertEquals(1, l.probesRefused());
        assertEquals(PathState.UP, rig.table.state(0));
    }

    @Test
    void aProbeErrorFailsItsPathLikeADataChunk() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.monitor.paths = 2;
        rig.monitor.probes.add(new long[] {0, 100});
        rig.monitor.probes.add(new long[] {0, 200});
        l.probe();
        rig.monitor.events.clear();
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.RETRY_EXC_ERR));
        assertEquals(1, l.probeErrors());
        assertEquals(PathState.RECOVERING, rig.table.state(0));
        assertEquals(1, rig.paths.pathFailures());
        assertEquals(List.of("probeCompleted 0 100 0 RETRY_EXCEEDED", "state 0 RECOVERING"), rig.monitor.events);
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        l.onProbeCompletion(rig.wc(rig.posted.get(1).wrId(), IbvWcStatus.WR_FLUSH_ERR));
        assertEquals(2, l.probeErrors());
        assertEquals(1, rig.paths.pathFailures(), "a path not UP fails once");
        assertEquals(1, rig.decomposition.size());
        assertEquals(PathState.RECOVERING, rig.table.state(0));
    }

    @Test
    void aProbeCompletionAfterADetachOnlyFailsThePath() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.monitor.probes.add(new long[] {0, 100});
        l.probe();
        l.requestDetach(rig.factory);
        rig.monitor.events.clear();
        rig.monitor.usable[0] = true;
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.REM_ACCESS_ERR));
        assertEquals(List.of(), rig.monitor.events, "the monitor is not told any more");
        assertEquals(1, l.probeErrors());
        assertEquals(PathState.RECOVERING, rig.table.state(0));
        assertEquals(List.of("pathsChanged"), rig.decomposition);
    }

    @Test
    void aProbeCompletionThatMakesAPathUsableTellsThePlacementAtOnce() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.monitor.probes.add(new long[] {0, 100});
        l.probe();
        rig.monitor.usable[0] = true;
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertEquals(0, l.tick(1), "already seen");
    }

    @Test
    void aProbeTheMonitorFailsToTakeCountsAFault() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.monitor.probes.add(new long[] {0, 100});
        rig.monitor.probes.add(new long[] {1, 100});
        l.probe();
        rig.monitor.throwOn = "onProbeCompleted";
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(1, l.monitorFaults());
        assertTrue(l.detachPending());

        PathMonitorLink a = rig.link(true, true, 0);
        rig.monitor.throwOn = null;
        rig.monitor.probes.add(new long[] {1, 100});
        a.probe();
        rig.monitor.throwOn = "onProbeCompleted";
        a.pathAbandoned(1);
        assertEquals(1, a.monitorFaults());
        assertTrue(a.detachPending());
    }

    @Test
    void aProbeForAPathBeyondAFullTableIsRefusedWithoutAFault() throws Exception {
        PathMonitorLink l = rig.link(true, true, rig.table.capacity());
        rig.monitor.probes.add(new long[] {rig.table.capacity(), 100});
        assertEquals(1, l.probe());
        assertEquals(1, l.probesRefused());
        assertEquals(0, l.monitorFaults());
        assertEquals(List.of("probeCompleted 8 100 0 ERROR"), rig.monitor.probeEvents());
        assertEquals(List.of(), rig.decomposition);
    }

    @Test
    void aRefusedProbeOnTheFirstPathNotUpTellsThePlacement() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.table.state(0, PathState.RECOVERING);
        rig.monitor.probes.add(new long[] {0, 100});
        l.probe();
        assertEquals(1, l.probesRefused());
        assertEquals(List.of("pathsChanged"), rig.decomposition);
    }

    @Test
    void aLateOrRepeatedProbeCompletionIsCountedAsStale() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.monitor.probes.add(new long[] {0, 100});
        l.probe();
        long wrId = rig.posted.get(0).wrId();
        l.onProbeCompletion(rig.wc(wrId, IbvWcStatus.SUCCESS));
        rig.monitor.events.clear();
        l.onProbeCompletion(rig.wc(wrId, IbvWcStatus.SUCCESS));
        assertEquals(1, l.staleProbeCompletions());
        assertEquals(List.of(), rig.monitor.events);
        assertTrue(l.describe().contains("staleProbeCqes=1"), l.describe());
    }

    @Test
    void anAbandonedPathsProbesAreReportedFlushed() throws Exception {
        PathMonitorLink l = rig.link(true, true, 2);
        rig.monitor.probes.add(new long[] {0, 100});
        rig.monitor.probes.add(new long[] {1, 200});
        rig.monitor.probes.add(new long[] {0, 300});
        l.probe();
        rig.monitor.events.clear();
        l.pathAbandoned(0);
        assertEquals(List.of("probeCompleted 0 100 0 FLUSHED", "probeCompleted 0 300 0 FLUSHED"),
                rig.monitor.probeEvents());
        assertTrue(l.describe().contains("probesInFlight=1"), l.describe());
        l.onProbeCompletion(rig.wc(rig.posted.get(0).wrId(), IbvWcStatus.WR_FLUSH_ERR));
        assertEquals(1, l.staleProbeCompletions(), "its completion comes too late");
        l.onProbeCompletion(rig.wc(rig.posted.get(1).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(1, l.staleProbeCompletions(), "the other path's probe is still in flight");
        assertTrue(l.describe().contains("probesInFlight=0"), l.describe());

        PathMonitorLink m = rig.link(true, true, 0);
        rig.monitor.probes.add(new long[] {0, 100});
        m.probe();
        m.requestDetach(rig.factory);
        rig.monitor.events.clear();
        m.pathAbandoned(0);
        assertEquals(List.of(), rig.monitor.events, "a detaching monitor is not told");
        assertTrue(m.describe().contains("probesInFlight=0"), m.describe());
    }

    @Test
    void completionStatusesMapToChunkOutcomes() {
        assertEquals(ChunkOutcome.SUCCESS, PathMonitorLink.outcome(IbvWcStatus.SUCCESS));
        assertEquals(ChunkOutcome.RETRY_EXCEEDED, PathMonitorLink.outcome(IbvWcStatus.RETRY_EXC_ERR));
        assertEquals(ChunkOutcome.RNR_RETRY_EXCEEDED, PathMonitorLink.outcome(IbvWcStatus.RNR_RETRY_EXC_ERR));
        assertEquals(ChunkOutcome.FLUSHED, PathMonitorLink.outcome(IbvWcStatus.WR_FLUSH_ERR));
        assertEquals(ChunkOutcome.ERROR, PathMonitorLink.outcome(IbvWcStatus.REM_ACCESS_ERR));
        assertEquals(ChunkOutcome.ERROR, PathMonitorLink.outcome(IbvWcStatus.GENERAL_ERR));
    }
}
