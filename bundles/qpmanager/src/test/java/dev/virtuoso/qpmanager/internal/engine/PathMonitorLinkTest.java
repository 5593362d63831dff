package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.reassembler.ReassemblyOutbox;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.WrId;

/**
 * {@link PathMonitorLink} on its own, on the test's thread: a scripted monitor, a real path table
 * and path manager over QPs that record their posts, a decomposition that records what it is told,
 * and a control writer over an unstarted control channel whose outbound ring the test reads.
 */
class PathMonitorLinkTest {
    private static final int SCRATCH = 4096;
    private static final int PEER_SCRATCH = 8192;
    private static final long SCRATCH_ADDR = 0x1000;
    private static final int LKEY = 0x11;
    private static final long PEER_ADDR = 0x90000;
    private static final int RKEY = 0x77;

    private final PathTable table = new PathTable(8);
    private final List<String> decomposition = new ArrayList<>();
    private final Decomposition decomp = (Decomposition) Proxy.newProxyInstance(
            Decomposition.class.getClassLoader(), new Class<?>[] {Decomposition.class}, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "pathsChanged" -> decomposition.add("pathsChanged");
                    case "policyView" -> decomposition.add("policyView " + (args[0] == table ? "table" : args[0]));
                    case "loadBalancer", "congestionAvoidance" -> decomposition.add(m.getName() + " " + args[0]);
                    case "maxChunkBytes" -> {
                        return 1000L + (int) args[0];
                    }
                    case "maxOutstandingChunks" -> {
                        return 3 + (int) args[0];
                    }
                    default -> throw new AssertionError("unexpected " + m.getName());
                }
                return null;
            });
    private final List<IbvSendWr> posted = new ArrayList<>();
    /** errno the QPs' postSend fails with, 0: none. */
    private int postErrno;
    private int scratchClosed;
    private final ControlWriter writer = new ControlWriter();
    private final ScriptedMonitor monitor = new ScriptedMonitor();
    private final PathMonitorFactory factory = (id, props, bytes) -> monitor;
    private PathManager paths;
    private ControlIo io;
    private ControlChannel channel;
    private SocketChannel socket;

    @BeforeEach
    void setUp() throws Exception {
        paths = new PathManager(null, null, table, writer, null, null, List.of(), true);
        paths.decomposition(decomp);
        io = new ControlIo("link-test", 1);
        socket = SocketChannel.open();
        channel = new ControlChannel(io, "link-test", socket, ByteBuffer.allocate(0), () -> { }, 1_000_000_000L,
                10_000_000_000L);
        writer.attach(channel);
    }

    @AfterEach
    void tearDown() throws Exception {
        channel.close();
        io.close(2000);
        socket.close();
    }

    private IbvQp qp() {
        return (IbvQp) Proxy.newProxyInstance(IbvQp.class.getClassLoader(), new Class<?>[] {IbvQp.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "postSend" -> {
                        if (postErrno != 0) {
                            throw new VerbsException(postErrno, "scripted");
                        }
                        IbvSendWr w = (IbvSendWr) args[0];
                        IbvSendWr copy = new IbvSendWr(1).wrId(w.wrId()).opcode(w.opcode()).remoteAddr(w.remoteAddr())
                                .rkey(w.rkey()).numSge(w.numSge());
                        copy.sge(0).set(w.sge(0).addr(), w.sge(0).length(), w.sge(0).lkey());
                        posted.add(copy);
                        yield null;
                    }
                    case "qpNum" -> 0x100;
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    private IbvMr scratch() {
        return (IbvMr) Proxy.newProxyInstance(IbvMr.class.getClassLoader(), new Class<?>[] {IbvMr.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "address" -> SCRATCH_ADDR;
                    case "length" -> SCRATCH;
                    case "lkey" -> LKEY;
                    case "close" -> {
                        scratchClosed++;
                        yield null;
                    }
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    /** A link over {@code monitor} (or none) with {@code n} paths added through the path manager. */
    private PathMonitorLink link(boolean withMonitor, boolean connecting, int n) throws Exception {
        PathMonitorLink l = new PathMonitorLink("c1", table, paths, scratch(), new ScratchRegion(PEER_ADDR, RKEY,
                PEER_SCRATCH), withMonitor ? monitor : null, withMonitor ? factory : null, writer, connecting);
        PolicyBinder binder = new PolicyBinder(new PolicyRegistry(), dev.virtuoso.api.ConnectOptions.builder().build(),
                "c1", decomp, l.view());
        binder.start();
        l.attach(decomp, binder);
        paths.events(l);
        for (int i = 0; i < n; i++) {
            paths.addEstablished(new PathSlot(InetAddress.getByName("10.0.1." + (i + 1)),
                    InetAddress.getByName("10.0.2." + (i + 1)), 0, qp(), 1, 64, null));
        }
        decomposition.clear();
        monitor.events.clear();
        return l;
    }

    private static IbvWc wc(long wrId, IbvWcStatus status) {
        return new IbvWc().set(wrId, status, IbvWcOpcode.RDMA_WRITE, 0, 0, 0, 0x100, 0, 0);
    }

    /** @return the frame types in the control channel's outbound ring, consumed */
    private List<Integer> framesWritten() throws Exception {
        List<Integer> types = new ArrayList<>();
        while (channel.outbound.readable() > 0) {
            ByteBuffer h = ByteBuffer.allocate(Protocol.HEADER_BYTES);
            channel.outbound.peek(0, h, Protocol.HEADER_BYTES);
            int body = FrameHeader.check(h, 0, Protocol.MAX_CONTROL_BODY);
            types.add(FrameHeader.type(h, 0));
            channel.outbound.commitRead(Protocol.HEADER_BYTES + body);
        }
        return types;
    }

    /** Leaves less than a claim's minimum in the outbound ring. */
    private int fillRing() {
        int n = channel.outbound.free() - (Protocol.HEADER_BYTES + ReassemblyOutbox.MIN_BODY_BYTES) + 1;
        assertTrue(channel.outbound.write(ByteBuffer.allocate(n)));
        return n;
    }

    // ---------------------------------------------------------------- without a monitor

    @Test
    void withoutAMonitorTheCoresViewServesAndTheConnectingSideStillSaysProbesDone() throws Exception {
        PathMonitorLink l = link(false, true, 2);
        assertSame(table, l.view());
        assertFalse(l.monitored());
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS), "nothing to detach from");
        assertEquals(0, l.tick(System.nanoTime()));
        assertTrue(l.timersPending(), "PROBES_DONE not yet written");
        assertEquals(1, l.probe(), "PROBES_DONE written");
        assertEquals(List.of(Protocol.PROBES_DONE), framesWritten());
        assertFalse(l.timersPending());
        assertEquals(0, l.probe(), "written once");
        assertEquals(List.of(), framesWritten());
        List<PathStats> core = List.of(stats(0));
        assertSame(core, l.overlay(core));
        assertFalse(l.requestDetach(factory), "no monitor, no factory");
        assertFalse(l.detachPending());
        l.close();
        assertEquals(1, scratchClosed);
    }

    @Test
    void theMonitorsProbesObeyTheCongestionPolicysChunkLimits() throws Exception {
        link(false, true, 0);
        assertEquals(null, monitor.limits, "no monitor bound, none told");
        link(true, true, 0);
        assertEquals(1002, monitor.limits.maxChunkBytes(2), "the decomposition's limit for the path");
        assertEquals(4, monitor.limits.maxOutstandingChunks(1));
        monitor.throwOn = "chunkLimits";
        PathMonitorLink l = link(true, true, 0);
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
        PathMonitorLink l = link(true, true, 1);
        assertSame(monitor, l.view());
        assertFalse(l.requestDetach(null));
        assertFalse(l.requestDetach((id, p, b) -> monitor), "another factory");
        assertFalse(l.detachPending());
        assertFalse(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertTrue(l.requestDetach(factory));
        assertTrue(l.detachPending());
        assertTrue(l.timersPending(), "a pending detach needs a tick");
        assertTrue(l.monitored(), "still bound until the engine's tick");
        assertEquals(1, l.tick(5));
        assertEquals(List.of("close"), monitor.events, "closed, not ticked");
        assertEquals(List.of("policyView table", "loadBalancer null", "congestionAvoidance null"), decomposition,
                "the sessions re-created over the core's view");
        assertFalse(l.monitored());
        assertSame(table, l.view());
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertFalse(l.detachPending());
        assertEquals(0, l.tick(6));
        l.onChunkPosted(0, 100);
        l.pathState(0, PathState.RECOVERING);
        l.close();
        assertEquals(List.of("close"), monitor.events, "never called again, not closed twice");
        assertEquals(0, l.monitorFaults());
    }

    @Test
    void aMonitorThatThrowsIsNotCalledAgainAndIsReplacedAtTheNextTick() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        monitor.throwOn = "tick";
        assertEquals(0, l.tick(10));
        assertEquals(1, l.monitorFaults());
        assertTrue(l.describe().contains("lastFault=java.lang.IllegalStateException: scripted tick"), l.describe());
        monitor.throwOn = null;
        monitor.events.clear();
        l.onChunkPosted(0, 100);
        l.onChunkCompleted(0, 100, 5, ChunkOutcome.SUCCESS);
        l.pathAdded(1);
        l.pathState(0, PathState.UP);
        monitor.probes.add(new long[] {0, 100});
        assertEquals(1, l.probe(), "PROBES_DONE only: no probe asked of a faulty monitor");
        assertEquals(1, monitor.probes.size());
        assertEquals(List.of(), posted);
        assertEquals(List.of(), monitor.events);
        List<PathStats> core = List.of(stats(0));
        assertSame(core, l.overlay(core), "the core's figures");
        assertEquals(1, l.tick(11), "detached");
        assertEquals(List.of("close"), monitor.events);
        assertEquals(List.of("policyView table", "loadBalancer null", "congestionAvoidance null"), decomposition);
        assertEquals(1, l.monitorFaults());
    }

    @Test
    void everyHookThatThrowsCountsAFault() throws Exception {
        String[] hooks = {"onChunkPosted", "onChunkCompleted", "onPathState", "statistics", "nextProbe",
            "onPathAdded", "usable"};
        table.add();
        for (String hook : hooks) {
            monitor.throwOn = hook;
            monitor.events.clear();
            PathMonitorLink l = new PathMonitorLink("c" + hook, table, paths, scratch(),
                    new ScratchRegion(PEER_ADDR, RKEY, PEER_SCRATCH), monitor, factory, writer, true);
            switch (hook) {
                case "onChunkPosted" -> l.onChunkPosted(0, 1);
                case "onChunkCompleted" -> l.onChunkCompleted(0, 1, 1, ChunkOutcome.SUCCESS);
                case "onPathState" -> l.pathState(0, PathState.UP);
                case "statistics" -> {
                    List<PathStats> core = List.of(stats(0));
                    assertSame(core, l.overlay(core), "the core's figures when the monitor fails");
                }
                case "nextProbe" -> assertEquals(1, l.probe(), "no probe; PROBES_DONE, as no flow runs");
                case "onPathAdded" -> l.pathAdded(0);
                case "usable" -> {
                    monitor.paths = 1;
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
        PathMonitorLink l = link(true, true, 1);
        monitor.throwOn = "close";
        l.close();
        assertEquals(1, l.monitorFaults());
        assertEquals(1, scratchClosed);
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertFalse(l.monitored());

        PathMonitorLink d = link(true, true, 0);
        assertTrue(d.requestDetach(factory));
        assertEquals(1, d.tick(1), "detached although close failed");
        assertEquals(1, d.monitorFaults());
        assertTrue(d.awaitDetached(0, TimeUnit.MILLISECONDS));
    }

    // ---------------------------------------------------------------- ticks and usability

    @Test
    void aTickAdvancesTheMonitorAndReportsAChangeOfUsabilityOnce() throws Exception {
        PathMonitorLink l = link(true, true, 3);
        monitor.paths = 3;
        assertEquals(0, l.tick(100), "nothing usable, nothing changed");
        assertEquals(List.of("tick 100"), monitor.events);
        monitor.usable[1] = true;
        assertEquals(1, l.tick(200));
        assertEquals(List.of("pathsChanged"), decomposition);
        assertEquals(0, l.tick(300), "the same usability is no change");
        assertEquals(1, decomposition.size());
        monitor.usable[1] = false;
        monitor.usable[2] = true;
        assertEquals(1, l.tick(400));
        assertEquals(2, decomposition.size(), "two paths changed, told once");
        monitor.paths = 2;
        monitor.usable[2] = false;
        assertEquals(0, l.tick(500), "a path beyond the monitor's count is not looked at");
    }

    @Test
    void aPathBeyondTheCoresTableIsNotLookedAt() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        monitor.paths = 3;
        monitor.usable[1] = true;
        assertEquals(0, l.tick(1), "path 1 is the monitor's, not yet the table's");
        monitor.usable[0] = true;
        assertEquals(1, l.tick(2));
    }

    // ---------------------------------------------------------------- path events

    @Test
    void pathsAreAnnouncedOnceAndAReusedSlotComesBackUp() throws Exception {
        PathMonitorLink l = link(true, true, 0);
        for (int i = 0; i < 3; i++) {
            table.add();
        }
        monitor.paths = 3;
        monitor.usable[0] = true;
        l.pathAdded(0);
        l.pathAdded(1);
        assertEquals(List.of("added 0", "added 1"), monitor.events);
        l.pathAdded(0);
        assertEquals(List.of("added 0", "added 1", "state 0 UP"), monitor.events, "a reused slot");
        l.pathAdded(2);
        assertEquals("added 2", monitor.events.get(3));
        assertEquals(0, l.tick(1), "the usability seen at pathAdded is no change");
        l.pathState(1, PathState.RECOVERING);
        assertEquals("state 1 RECOVERING", monitor.events.get(5));
        monitor.usable[1] = true;
        l.pathState(1, PathState.UP);
        assertEquals(0, l.tick(2), "the usability seen at pathState is no change");
        assertEquals(List.of(), decomposition);
    }

    @Test
    void chunkEventsReachTheMonitor() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        l.onChunkPosted(0, 4096);
        l.onChunkCompleted(0, 4096, 1234, ChunkOutcome.RETRY_EXCEEDED);
        assertEquals(List.of("posted 0 4096", "completed 0 4096 1234 RETRY_EXCEEDED"), monitor.events);
    }

    @Test
    void theAcceptingSideProbesAnAddedPathOnlyOnceItsStaggerIsOver() throws Exception {
        PathMonitorLink l = link(true, false, 0);
        l.pathAdded(0);
        assertEquals(List.of("added 0"), monitor.events, "waiting for PROBES_DONE: no probe yet");
        l.onPeerProbesDone(ByteBuffer.allocate(0));
        l.tick(1);
        monitor.events.clear();
        l.pathAdded(1);
        assertEquals(List.of("added 1", "requestProbe 1"), monitor.events);

        PathMonitorLink c = link(true, true, 0);
        assertEquals(1, c.probe(), "the connecting side says PROBES_DONE at once without probes");
        c.pathAdded(0);
        assertEquals(List.of("added 0"), monitor.events, "no probe requested by the connecting side");
    }

    // ---------------------------------------------------------------- probe stagger

    @Test
    void theConnectingSideSaysProbesDoneWhenItsFlowsAreOver() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        monitor.probes.add(new long[] {0, 1000});
        assertEquals(1, l.probe());
        assertEquals(List.of(), framesWritten(), "a probe in flight: not over");
        assertTrue(l.timersPending());
        assertEquals(0, l.probe());
        assertEquals(List.of(), framesWritten(), "still in flight");
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(1, l.probe(), "over: PROBES_DONE");
        assertEquals(List.of(Protocol.PROBES_DONE), framesWritten());
        assertFalse(l.timersPending());
        monitor.probes.add(new long[] {1, 1000});
        assertEquals(1, l.probe(), "a later probe");
        assertEquals(List.of(), framesWritten(), "PROBES_DONE only once");
        assertTrue(l.timersPending(), "a probe in flight");
    }

    @Test
    void probesDoneWaitsForRoomInTheControlRing() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        int filler = fillRing();
        assertEquals(0, l.probe());
        assertTrue(l.timersPending(), "PROBES_DONE still to write");
        assertEquals(0, l.probe(), "still no room");
        channel.outbound.commitRead(filler);
        assertEquals(1, l.probe());
        assertEquals(List.of(Protocol.PROBES_DONE), framesWritten());
        assertFalse(l.timersPending());

        PathMonitorLink detached = link(false, true, 0);
        filler = fillRing();
        assertEquals(0, detached.probe());
        assertTrue(detached.timersPending());
        channel.outbound.commitRead(filler);
        assertEquals(1, detached.probe(), "without a monitor too");
        assertEquals(List.of(Protocol.PROBES_DONE), framesWritten());
    }

    @Test
    void theAcceptingSideProbesItsUpPathsWhenProbesDoneArrives() throws Exception {
        PathMonitorLink l = link(true, false, 3);
        monitor.paths = 2;
        table.state(1, PathState.RECOVERING);
        assertTrue(l.timersPending());
        assertEquals(0, l.probe(), "the accepting side writes no PROBES_DONE");
        assertEquals(List.of(), framesWritten());
        l.onPeerProbesDone(ByteBuffer.allocate(0));
        assertTrue(l.peerProbesDone());
        l.tick(System.nanoTime());
        assertEquals(List.of("requestProbe 0", "tick"), monitor.events.stream()
                .map(e -> e.startsWith("tick") ? "tick" : e).toList(), "UP paths the monitor knows, then the tick");
        assertEquals(0, l.peerProbesTimeouts());
        assertFalse(l.timersPending());
        monitor.events.clear();
        l.tick(System.nanoTime());
        assertEquals(1, monitor.events.size(), "probed once: " + monitor.events);
    }

    @Test
    void theAcceptingSideStopsWaitingForProbesDoneAtItsDeadline() throws Exception {
        long before = System.nanoTime();
        PathMonitorLink l = link(true, false, 1);
        long after = System.nanoTime();
        monitor.paths = 1;
        l.tick(before + PathMonitorLink.PEER_PROBES_WAIT_NANOS - 1);
        assertEquals(0, monitor.events.stream().filter(e -> e.startsWith("requestProbe")).count());
        assertTrue(l.timersPending());
        l.tick(after + PathMonitorLink.PEER_PROBES_WAIT_NANOS);
        assertTrue(monitor.events.contains("requestProbe 0"), monitor.events.toString());
        assertEquals(1, l.peerProbesTimeouts());
        assertFalse(l.peerProbesDone());
        assertFalse(l.timersPending());
        assertTrue(l.describe().contains("peerProbesTimeouts=1"), l.describe());

        PathMonitorLink none = link(false, false, 1);
        none.tick(System.nanoTime() + PathMonitorLink.PEER_PROBES_WAIT_NANOS + 1);
        assertEquals(1, none.peerProbesTimeouts(), "counted without a monitor too");
        assertFalse(none.timersPending());
    }

    @Test
    void theDeferredProbesOfAMonitorThatThrowsCountAFault() throws Exception {
        PathMonitorLink l = link(true, false, 1);
        monitor.paths = 1;
        monitor.throwOn = "requestProbe";
        l.onPeerProbesDone(ByteBuffer.allocate(0));
        assertEquals(1, l.tick(1), "the fault detaches the monitor in the same tick");
        assertEquals(1, l.monitorFaults());
        assertEquals(List.of("close"), monitor.events, "not ticked after its fault");
        assertFalse(l.monitored());
        assertEquals("policyView table", decomposition.get(0));
    }

    @Test
    void probesDoneIsRefusedWithABodyOnTheConnectingSideAndTwice() throws Exception {
        PathMonitorLink accepting = link(true, false, 0);
        assertThrows(ProtocolException.class, () -> accepting.onPeerProbesDone(ByteBuffer.allocate(1)));
        assertFalse(accepting.peerProbesDone());
        accepting.onPeerProbesDone(ByteBuffer.allocate(0));
        ProtocolException twice = assertThrows(ProtocolException.class,
                () -> accepting.onPeerProbesDone(ByteBuffer.allocate(0)));
        assertEquals("duplicate PROBES_DONE", twice.getMessage());
        PathMonitorLink connecting = link(true, true, 0);
        ProtocolException wrongSide = assertThrows(ProtocolException.class,
                () -> connecting.onPeerProbesDone(ByteBuffer.allocate(0)));
        assertEquals("PROBES_DONE sent to the connecting side", wrongSide.getMessage());
        assertFalse(connecting.peerProbesDone());
    }

    // ---------------------------------------------------------------- probe WRITEs

    @Test
    void aProbeIsAnRdmaWriteFromTheScratchRegionToThePeers() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        monitor.probes.add(new long[] {1, 3000});
        l.tick(1_000);
        assertEquals(1, l.probe());
        assertEquals(1, posted.size());
        IbvSendWr w = posted.get(0);
        assertEquals(IbvWrOpcode.RDMA_WRITE, w.opcode());
        assertEquals(WrIdTags.PROBE, WrId.tag(w.wrId()));
        assertEquals(1, w.numSge());
        assertEquals(SCRATCH_ADDR, w.sge(0).addr());
        assertEquals(3000, w.sge(0).length());
        assertEquals(LKEY, w.sge(0).lkey());
        assertEquals(PEER_ADDR, w.remoteAddr());
        assertEquals(RKEY, w.rkey());
        assertEquals(1, l.probesPosted());
        assertEquals(0, l.probesRefused());
        assertTrue(l.describe().contains("probesPosted=1 probesRefused=0"), l.describe());
        assertTrue(l.describe().contains("probesInFlight=1"), l.describe());

        monitor.capacity = 5e9;
        l.tick(251_000);
        l.onProbeCompletion(wc(w.wrId(), IbvWcStatus.SUCCESS));
        assertEquals(List.of("probeCompleted 1 3000 250000 SUCCESS"), monitor.probeEvents());
        assertEquals(5e9, table.probedCapacity(1), "kept in the core's view");
        assertEquals(0.0, table.probedCapacity(0));
        assertEquals(0, l.probeErrors());
        assertTrue(l.describe().contains("probesInFlight=0"), l.describe());
    }

    @Test
    void aProbeCompletionWithoutACapacityLeavesTheCoresFigure() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        table.probedCapacity(0, 7e8);
        monitor.probes.add(new long[] {0, 100});
        l.probe();
        monitor.capacity = 0;
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(7e8, table.probedCapacity(0));
    }

    @Test
    void aProbeCompletionIsNeverEarlierThanItsPost() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        l.tick(5_000);
        monitor.probes.add(new long[] {0, 100});
        l.probe();
        l.tick(4_000);
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(List.of("probeCompleted 0 100 0 SUCCESS"), monitor.probeEvents());
    }

    @Test
    void atMost64ProbesArePostedInOneCycle() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        for (int i = 0; i < 70; i++) {
            monitor.probes.add(new long[] {0, 64});
        }
        assertEquals(64, l.probe());
        assertEquals(64, posted.size());
        assertEquals(6, monitor.probes.size(), "the rest waits for the next cycle");
        assertEquals(6, l.probe());
        assertEquals(70, l.probesPosted());
    }

    @Test
    void probesTheLinkCannotPostAreReportedAsFailedAtOnce() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        table.state(1, PathState.RECOVERING);
        long[][] refused = {{0, 0}, {0, -1}, {0, SCRATCH + 1}, {-1, 100}, {2, 100}, {1, 100}};
        for (long[] r : refused) {
            monitor.probes.add(r);
        }
        monitor.probes.add(new long[] {0, SCRATCH});
        assertEquals(7, l.probe());
        assertEquals(1, posted.size(), "only the probe of the whole scratch region on an UP path");
        assertEquals(SCRATCH, posted.get(0).sge(0).length());
        assertEquals(1, l.probesPosted());
        assertEquals(6, l.probesRefused());
        assertEquals(List.of("probeCompleted 0 0 0 ERROR", "probeCompleted 0 -1 0 ERROR",
                "probeCompleted 0 4097 0 ERROR", "probeCompleted -1 100 0 ERROR", "probeCompleted 2 100 0 ERROR",
                "probeCompleted 1 100 0 ERROR"), monitor.probeEvents());
        assertEquals(List.of("pathsChanged"), decomposition, "the path not UP: the placement is told");
    }

    @Test
    void theSmallerScratchRegionBoundsAProbe() throws Exception {
        PathMonitorLink l = new PathMonitorLink("c1", table, paths, scratch(), new ScratchRegion(PEER_ADDR, RKEY, 2048),
                monitor, factory, writer, true);
        l.attach(decomp, null);
        paths.events(l);
        paths.addEstablished(new PathSlot(InetAddress.getByName("10.0.1.1"), InetAddress.getByName("10.0.2.1"), 0,
                qp(), 1, 64, null));
        monitor.probes.add(new long[] {0, 2049});
        monitor.probes.add(new long[] {0, 2048});
        l.probe();
        assertEquals(1, l.probesRefused());
        assertEquals(1, posted.size());
        assertEquals(2048, posted.get(0).sge(0).length());
    }

    @Test
    void aPostThatFindsTheQpBrokenFailsThePath() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        postErrno = VerbsException.EINVAL;
        monitor.probes.add(new long[] {1, 100});
        assertEquals(1, l.probe());
        assertEquals(0, l.probesPosted());
        assertEquals(1, l.probesRefused());
        assertEquals(PathState.RECOVERING, table.state(1));
        assertEquals(PathState.UP, table.state(0));
        assertEquals(1, paths.pathFailures());
        assertEquals(List.of("pathsChanged"), decomposition);
        assertEquals(List.of("state 1 RECOVERING", "probeCompleted 1 100 0 ERROR"), monitor.events);
        assertTrue(l.describe().contains("probesInFlight=0"), "the slot is released: " + l.describe());
    }

    @Test
    void aFullSendQueueRefusesTheProbeButLeavesThePathUp() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        postErrno = VerbsException.ENOMEM;
        monitor.probes.add(new long[] {0, 100});
        l.probe();
        assertEquals(1, l.probesRefused());
        assertEquals(PathState.UP, table.state(0));
        assertEquals(List.of(), decomposition);
        assertEquals(List.of("probeCompleted 0 100 0 ERROR"), monitor.probeEvents());
    }

    @Test
    void aFullProbeTableRefusesFurtherProbes() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        for (int i = 0; i < 257; i++) {
            monitor.probes.add(new long[] {0, 8});
        }
        for (int i = 0; i < 5; i++) {
            l.probe();
        }
        assertEquals(256, l.probesPosted());
        assertEquals(1, l.probesRefused());
        assertEquals(PathState.UP, table.state(0));
    }

    @Test
    void aProbeErrorFailsItsPathLikeADataChunk() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        monitor.paths = 2;
        monitor.probes.add(new long[] {0, 100});
        monitor.probes.add(new long[] {0, 200});
        l.probe();
        monitor.events.clear();
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.RETRY_EXC_ERR));
        assertEquals(1, l.probeErrors());
        assertEquals(PathState.RECOVERING, table.state(0));
        assertEquals(1, paths.pathFailures());
        assertEquals(List.of("probeCompleted 0 100 0 RETRY_EXCEEDED", "state 0 RECOVERING"), monitor.events);
        assertEquals(List.of("pathsChanged"), decomposition);
        l.onProbeCompletion(wc(posted.get(1).wrId(), IbvWcStatus.WR_FLUSH_ERR));
        assertEquals(2, l.probeErrors());
        assertEquals(1, paths.pathFailures(), "a path not UP fails once");
        assertEquals(1, decomposition.size());
        assertEquals(PathState.RECOVERING, table.state(0));
    }

    @Test
    void aProbeCompletionAfterADetachOnlyFailsThePath() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        monitor.probes.add(new long[] {0, 100});
        l.probe();
        l.requestDetach(factory);
        monitor.events.clear();
        monitor.usable[0] = true;
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.REM_ACCESS_ERR));
        assertEquals(List.of(), monitor.events, "the monitor is not told any more");
        assertEquals(1, l.probeErrors());
        assertEquals(PathState.RECOVERING, table.state(0));
        assertEquals(List.of("pathsChanged"), decomposition);
    }

    @Test
    void aProbeCompletionThatMakesAPathUsableTellsThePlacementAtOnce() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        monitor.probes.add(new long[] {0, 100});
        l.probe();
        monitor.usable[0] = true;
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(List.of("pathsChanged"), decomposition);
        assertEquals(0, l.tick(1), "already seen");
    }

    @Test
    void aProbeTheMonitorFailsToTakeCountsAFault() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        monitor.probes.add(new long[] {0, 100});
        monitor.probes.add(new long[] {1, 100});
        l.probe();
        monitor.throwOn = "onProbeCompleted";
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(1, l.monitorFaults());
        assertTrue(l.detachPending());

        PathMonitorLink a = link(true, true, 0);
        monitor.throwOn = null;
        monitor.probes.add(new long[] {1, 100});
        a.probe();
        monitor.throwOn = "onProbeCompleted";
        a.pathAbandoned(1);
        assertEquals(1, a.monitorFaults());
        assertTrue(a.detachPending());
    }

    @Test
    void aProbeForAPathBeyondAFullTableIsRefusedWithoutAFault() throws Exception {
        PathMonitorLink l = link(true, true, table.capacity());
        monitor.probes.add(new long[] {table.capacity(), 100});
        assertEquals(1, l.probe());
        assertEquals(1, l.probesRefused());
        assertEquals(0, l.monitorFaults());
        assertEquals(List.of("probeCompleted 8 100 0 ERROR"), monitor.probeEvents());
        assertEquals(List.of(), decomposition);
    }

    @Test
    void aRefusedProbeOnTheFirstPathNotUpTellsThePlacement() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        table.state(0, PathState.RECOVERING);
        monitor.probes.add(new long[] {0, 100});
        l.probe();
        assertEquals(1, l.probesRefused());
        assertEquals(List.of("pathsChanged"), decomposition);
    }

    @Test
    void aLateOrRepeatedProbeCompletionIsCountedAsStale() throws Exception {
        PathMonitorLink l = link(true, true, 1);
        monitor.probes.add(new long[] {0, 100});
        l.probe();
        long wrId = posted.get(0).wrId();
        l.onProbeCompletion(wc(wrId, IbvWcStatus.SUCCESS));
        monitor.events.clear();
        l.onProbeCompletion(wc(wrId, IbvWcStatus.SUCCESS));
        assertEquals(1, l.staleProbeCompletions());
        assertEquals(List.of(), monitor.events);
        assertTrue(l.describe().contains("staleProbeCqes=1"), l.describe());
    }

    @Test
    void anAbandonedPathsProbesAreReportedFlushed() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        monitor.probes.add(new long[] {0, 100});
        monitor.probes.add(new long[] {1, 200});
        monitor.probes.add(new long[] {0, 300});
        l.probe();
        monitor.events.clear();
        l.pathAbandoned(0);
        assertEquals(List.of("probeCompleted 0 100 0 FLUSHED", "probeCompleted 0 300 0 FLUSHED"),
                monitor.probeEvents());
        assertTrue(l.describe().contains("probesInFlight=1"), l.describe());
        l.onProbeCompletion(wc(posted.get(0).wrId(), IbvWcStatus.WR_FLUSH_ERR));
        assertEquals(1, l.staleProbeCompletions(), "its completion comes too late");
        l.onProbeCompletion(wc(posted.get(1).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(1, l.staleProbeCompletions(), "the other path's probe is still in flight");
        assertTrue(l.describe().contains("probesInFlight=0"), l.describe());

        PathMonitorLink m = link(true, true, 0);
        monitor.probes.add(new long[] {0, 100});
        m.probe();
        m.requestDetach(factory);
        monitor.events.clear();
        m.pathAbandoned(0);
        assertEquals(List.of(), monitor.events, "a detaching monitor is not told");
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

    // ---------------------------------------------------------------- statistics and end

    @Test
    void theMonitorsFiguresOverlayTheCoresStatistics() throws Exception {
        PathMonitorLink l = link(true, true, 2);
        monitor.paths = 1;
        PathStats core0 = stats(0);
        PathStats core1 = stats(1);
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
        PathMonitorLink l = link(true, true, 1);
        l.close();
        assertEquals(List.of("close"), monitor.events);
        assertEquals(1, scratchClosed);
        assertTrue(l.awaitDetached(0, TimeUnit.MILLISECONDS));
        assertFalse(l.monitored());
        assertTrue(l.describe().startsWith("monitor=none"), l.describe());
        assertTrue(l.describe().endsWith("connection=c1"), l.describe());
        assertEquals(0, l.monitorFaults());
    }

    private static PathStats stats(int id) throws Exception {
        return new PathStats(id, InetAddress.getByName("10.0.1.1"), InetAddress.getByName("10.0.2.1"), PathState.UP,
                1, 2, 3, 4, 5, 6, 7, 99);
    }
}
