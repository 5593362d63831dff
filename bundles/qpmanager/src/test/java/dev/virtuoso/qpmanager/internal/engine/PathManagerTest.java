package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPath;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPathAck;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPathNak;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.PathRef;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.RepairPath;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * The path manager on the test's thread: adding, removing and repairing paths through the control
 * frames it writes and the ones the test hands it, over QPs that record their states, with the
 * table's clock set by the test (so every deadline is checked at its edge).
 */
class PathManagerTest {
    private static final long MIN = PathManager.MIN_REPAIR_DELAY_NANOS;
    private static final ConnectOptions OPTIONS = ConnectOptions.builder().handshakeTimeout(Duration.ofMillis(100))
            .mtu(1024).build();
    private static final long HANDSHAKE = OPTIONS.handshakeTimeout().toNanos();
    private static final InetAddress L0 = Fabric.ip("10.0.1.1");
    private static final InetAddress L1 = Fabric.ip("10.0.1.2");
    private static final InetAddress R0 = Fabric.ip("10.0.2.1");

    private LinkRig rig;
    private ScriptedVerbs verbs;
    private PathManager paths;
    private final List<String> events = new ArrayList<>();

    @BeforeEach
    void rig() throws Exception {
        rig = new LinkRig();
        verbs = new ScriptedVerbs(L0, L1);
    }

    @AfterEach
    void close() throws Exception {
        verbs.close();
        rig.close();
    }

    /** @param allowed the local addresses the connection may use */
    private void manager(boolean client, InetAddress... allowed) {
        paths = new PathManager(verbs.res, verbs.receives, rig.table, rig.writer, OPTIONS, CoreSettings.DEFAULTS,
                List.of(allowed), client);
        paths.decomposition(rig.decomp);
        paths.events(new PathEvents() {
            @Override
            public void pathAdded(int path) {
                events.add("added " + path);
            }

            @Override
            public void pathState(int path, PathState state) {
                events.add("state " + path + " " + state);
            }

            @Override
            public void pathAbandoned(int path) {
                events.add("abandoned " + path);
            }
        });
    }

    /** Adds established paths 0..n-1; path i's peer QP is 0x500 + i. */
    private List<PathSlot> established(int n) throws Exception {
        List<PathSlot> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            PathSlot s = new PathSlot(Fabric.ip("10.0.1." + (i + 1)), Fabric.ip("10.0.2." + (i + 1)), 0,
                    verbs.qp().proxy, 1, 64, verbs.receives);
            s.remoteQpn = 0x500 + i;
            paths.addEstablished(s);
            out.add(s);
        }
        events.clear();
        rig.decomposition.clear();
        return out;
    }

    private LinkRig.Frame onlyFrame(int type) throws Exception {
        List<LinkRig.Frame> f = rig.frames();
        assertEquals(1, f.size(), "frames " + f);
        assertEquals(Protocol.typeName(type), Protocol.typeName(f.get(0).type()));
        return f.get(0);
    }

    private static ByteBuffer body(java.util.function.Consumer<ByteBuffer> encoder) {
        ByteBuffer b = ByteBuffer.allocate(512);
        encoder.accept(b);
        return b.flip();
    }

    private static VirtuosoException failure(CompletableFuture<?> f) {
        assertTrue(f.isCompletedExceptionally(), "failed: " + f);
        ExecutionException e = assertThrows(ExecutionException.class, f::get);
        return (VirtuosoException) e.getCause();
    }

    // ---------------------------------------------------------------- failure and repair

    /** Path 1 fails at time 0 and its repair is requested after the first delay. @return the request's id */
    private int requestRepairOfPath1() throws Exception {
        rig.table.clock(0);
        paths.pathFailed(1, IbvWcStatus.RETRY_EXC_ERR);
        paths.duty(MIN);
        return RepairPath.decode(onlyFrame(Protocol.REPAIR_PATH).body()).requestId();
    }

    @Test
    void aFailedPathAsksForRepairWhenItsDelayIsUp() throws Exception {
        manager(true, L0, L1);
        PathSlot s = established(2).get(1);
        ScriptedVerbs.Qp old = verbs.byQpn(s.qp.qpNum());
        rig.table.clock(1000);
        paths.pathFailed(1, IbvWcStatus.RETRY_EXC_ERR);
        assertEquals(1, paths.pathFailures());
        assertEquals(PathState.RECOVERING, rig.table.state(1));
        assertEquals(List.of("state 1 RECOVERING"), events);
        assertEquals(1000 + MIN, s.nextRepairAt);
        assertEquals(2 * MIN, s.repairDelayNanos, "the next attempt backs off");
        assertTrue(paths.timersPending(), "a recovering path keeps the timer running");
        events.clear();

        assertEquals(0, paths.duty(1000 + MIN - 1));
        assertEquals(List.of(), rig.frames());
        assertEquals(1, paths.duty(1000 + MIN));
        RepairPath m = RepairPath.decode(onlyFrame(Protocol.REPAIR_PATH).body());
        ScriptedVerbs.Qp fresh = verbs.last();
        assertEquals(old.qpn, m.oldQpn());
        assertEquals(fresh.qpn, m.qpn());
        assertEquals(ScriptedVerbs.UDP_PORT, m.udpPort());
        assertEquals(1024, m.mtu());
        assertEquals(IbvQpState.ERR, old.state(), "the failed QP is flushed");
        assertTrue(old.closed);
        assertTrue(verbs.detached.contains(old.qpn));
        assertEquals(IbvQpState.INIT, fresh.state());
        assertFalse(fresh.closed);
        assertEquals(List.of("abandoned 1"), events);
        assertEquals(List.of(), rig.decomposition, "nothing was in flight");

        // the request waits for its answer up to the handshake timeout, then is dropped and retried
        assertEquals(0, paths.duty(1000 + MIN + HANDSHAKE));
        assertFalse(fresh.closed);
        assertEquals(0, paths.duty(1000 + MIN + HANDSHAKE + 1));
        assertTrue(fresh.closed, "the unanswered request's QP is released");
        assertNull(s.repairQp);
        long retry = 1000 + MIN + HANDSHAKE + 1 + 2 * MIN;
        assertEquals(retry, s.nextRepairAt);
        assertEquals(0, paths.duty(retry - 1));
        assertEquals(List.of(), rig.frames());
        assertEquals(1, paths.duty(retry));
        RepairPath again = RepairPath.decode(onlyFrame(Protocol.REPAIR_PATH).body());
        assertEquals(m.requestId() + 1, again.requestId(), "each request has a new id");

        // a stale answer (the dropped request) changes nothing
        paths.onRepairAck(body(new AddPathAck(m.requestId(), 5000, 0x777, 9, 512)::encode));
        assertEquals(PathState.RECOVERING, rig.table.state(1));
        assertEquals(List.of(), rig.decomposition);

        paths.onRepairAck(body(new AddPathAck(again.requestId(), 5000, 0x777, 9, 512)::encode));
        ScriptedVerbs.Qp repaired = verbs.last();
        assertSame(repaired.proxy, s.qp);
        assertNull(s.repairQp);
        assertEquals(List.of(IbvQpState.INIT, IbvQpState.RTR, IbvQpState.RTS), repaired.states);
        assertEquals(0x777, s.remoteQpn);
        assertEquals(9, s.remotePsn);
        assertEquals(5000, s.remoteUdpPort);
        assertEquals(512, s.mtu, "the smaller MTU");
        assertEquals(PathState.UP, rig.table.state(1));
        assertEquals(List.of("pathFenced 1", "pathsChanged"), rig.decomposition);
        assertEquals(repaired.qpn, PathRef.decode(onlyFrame(Protocol.PATH_READY).body()).qpn());
        assertFalse(paths.timersPending());
    }

    @Test
    void theRepairDelayDoublesUpToItsMaximumAndResetsOnceThePathCarriesChunks() throws Exception {
        manager(true, L0, L1);
        PathSlot s = established(2).get(1);
        rig.table.clock(0);
        long delay = MIN;
        for (int i = 0; i < 12; i++) {
            paths.pathFailed(1, IbvWcStatus.RETRY_EXC_ERR);
            assertEquals(delay, s.nextRepairAt, "attempt " + i);
            delay = Math.min(2 * delay, PathManager.MAX_REPAIR_DELAY_NANOS);
            assertEquals(delay, s.repairDelayNanos);
        }
        assertEquals(PathManager.MAX_REPAIR_DELAY_NANOS, s.repairDelayNanos);
        assertEquals(12, paths.pathFailures());
        assertEquals(List.of("state 1 RECOVERING"), events, "told once");

        // repaired: the delay stays while the path has carried nothing since
        assertEquals(1, paths.duty(PathManager.MAX_REPAIR_DELAY_NANOS));
        int id = RepairPath.decode(onlyFrame(Protocol.REPAIR_PATH).body()).requestId();
        paths.onRepairAck(body(new AddPathAck(id, 5000, 0x777, 9, 1024)::encode));
        assertEquals(0, paths.duty(2 * PathManager.MAX_REPAIR_DELAY_NANOS));
        assertEquals(PathManager.MAX_REPAIR_DELAY_NANOS, s.repairDelayNanos);
        rig.table.onPosted(1, 100);
        rig.table.onCompleted(1, 100, 1000, true);
        assertEquals(0, paths.duty(2 * PathManager.MAX_REPAIR_DELAY_NANOS));
        assertEquals(MIN, s.repairDelayNanos, "a path that carries chunks again starts from the shortest delay");
    }

    @Test
    void aFailedPathWithChunksInFlightWaitsForTheirFlushUpToASecond() throws Exception {
        manager(true, L0, L1);
        established(2);
        rig.table.onPosted(1, 100);
        rig.table.clock(5000);
        paths.pathFailed(1, IbvWcStatus.RETRY_EXC_ERR);
        assertEquals(0, paths.duty(5000 + MIN));
        assertEquals(0, paths.duty(5000 + 999_999_999L));
        assertEquals(List.of(), rig.frames());
        assertEquals(List.of(), rig.decomposition);
        assertEquals(1, paths.duty(5000 + 1_000_000_000L));
        assertEquals(List.of("abandonPath 1"), rig.decomposition, "the unflushed chunks are abandoned");
        onlyFrame(Protocol.REPAIR_PATH);
    }

    @Test
    void aRepairThatCannotStartIsRetriedAfterTheDelay() throws Exception {
        manager(true, L0, L1);
        PathSlot s = established(2).get(1);
        rig.table.clock(0);
        paths.pathFailed(1, IbvWcStatus.RETRY_EXC_ERR);
        verbs.createFails = true;
        paths.duty(MIN);
        assertEquals(List.of(), rig.frames());
        assertNull(s.repairQp);
        assertEquals(MIN + 2 * MIN, s.nextRepairAt);

        verbs.createFails = false;
        rig.fillRing();
        assertEquals(1, paths.duty(3 * MIN));
        assertNull(s.repairQp, "a request that could not be sent is dropped");
        assertTrue(verbs.last().closed);
        assertEquals(3 * MIN + 2 * MIN, s.nextRepairAt);
    }

    @Test
    void theServerRepairsAPathThePeerAsksFor() throws Exception {
        manager(false, L0, L1);
        PathSlot s = established(2).get(1);
        ScriptedVerbs.Qp old = verbs.byQpn(s.qp.qpNum());
        paths.onRepairPath(body(new RepairPath(7, 0x501, 5000, 0x888, 3, 512)::encode));
        assertEquals(PathState.RECOVERING, rig.table.state(1));
        assertEquals(List.of("pathsChanged", "abandonPath 1", "pathFenced 1"), rig.decomposition);
        assertEquals(List.of("state 1 RECOVERING", "abandoned 1"), events);
        assertEquals(IbvQpState.ERR, old.state());
        assertTrue(old.closed);
        ScriptedVerbs.Qp fresh = verbs.last();
        assertSame(fresh.proxy, s.qp);
        assertEquals(List.of(IbvQpState.INIT, IbvQpState.RTR, IbvQpState.RTS), fresh.states);
        assertEquals(0x888, s.remoteQpn);
        assertEquals(512, s.mtu);
        AddPathAck ack = AddPathAck.decode(onlyFrame(Protocol.REPAIR_ACK).body());
        assertEquals(7, ack.requestId());
        assertEquals(fresh.qpn, ack.qpn());
        assertEquals(s.localPsn, ack.psn());
        assertEquals(1024, ack.mtu());
        assertTrue(s.awaitingReady);
        assertTrue(paths.timersPending(), "waiting for PATH_READY");
        assertEquals(0, paths.duty(System.nanoTime()), "no repair of its own while it waits");
        assertEquals(List.of(), rig.frames());

        rig.decomposition.clear();
        paths.onPathReady(body(new PathRef(0x888)::encode));
        assertEquals(PathState.UP, rig.table.state(1));
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertFalse(s.awaitingReady);
        assertFalse(paths.timersPending());
    }

    @Test
    void aRepairRequestForAPathAlreadyRecoveringDoesNotTellThePlacementTwice() throws Exception {
        manager(false, L0, L1);
        established(2);
        paths.pathFailed(1, IbvWcStatus.RETRY_EXC_ERR);
        rig.decomposition.clear();
        paths.onRepairPath(body(new RepairPath(7, 0x501, 5000, 0x888, 3, 512)::encode));
        assertEquals(List.of("abandonPath 1", "pathFenced 1"), rig.decomposition);
        onlyFrame(Protocol.REPAIR_ACK);
    }

    @Test
    void repairRequestsForUnknownOrRemovedPathsOrThatCollideAreRefused() throws Exception {
        manager(true, L0, L1);
        List<PathSlot> s = established(3);
        paths.onRepairPath(body(new RepairPath(7, 0x5FF, 5000, 0x888, 3, 512)::encode));
        AddPathNak nak = AddPathNak.decode(onlyFrame(Protocol.REPAIR_NAK).body());
        assertEquals(7, nak.requestId());
        assertEquals("no such path", nak.reason());

        paths.requestRemove(2, new CompletableFuture<>(), 0);
        rig.frames();
        paths.onRepairPath(body(new RepairPath(8, 0x502, 5000, 0x888, 3, 512)::encode));
        assertEquals("no such path", AddPathNak.decode(onlyFrame(Protocol.REPAIR_NAK).body()).reason());

        // both sides repair at once: the client's own request wins
        rig.table.clock(0);
        paths.pathFailed(1, IbvWcStatus.RETRY_EXC_ERR);
        paths.duty(MIN);
        rig.frames();
        ScriptedVerbs.Qp own = verbs.last();
        rig.decomposition.clear();
        paths.onRepairPath(body(new RepairPath(9, 0x501, 5000, 0x888, 3, 512)::encode));
        nak = AddPathNak.decode(onlyFrame(Protocol.REPAIR_NAK).body());
        assertEquals(9, nak.requestId());
        assertEquals("repair collision", nak.reason());
        assertSame(own.proxy, s.get(1).repairQp);
        assertFalse(own.closed);
        assertEquals(List.of(), rig.decomposition);
    }

    @Test
    void onACollisionTheServerDropsItsOwnRequestAndAnswersTheClients() throws Exception {
        manager(false, L0, L1);
        PathSlot s = established(2).get(1);
        int ownId = requestRepairOfPath1();
        ScriptedVerbs.Qp own = verbs.last();
        paths.onRepairPath(body(new RepairPath(9, 0x501, 5000, 0x888, 3, 512)::encode));
        assertTrue(own.closed, "the server's own request is dropped");
        assertEquals(9, AddPathAck.decode(onlyFrame(Protocol.REPAIR_ACK).body()).requestId());
        assertNull(s.repairQp);
        assertEquals(0, s.repairRequest);
        // the answer to the dropped request finds nothing
        rig.decomposition.clear();
        paths.onRepairAck(body(new AddPathAck(ownId, 5000, 0x999, 9, 1024)::encode));
        assertEquals(0x888, s.remoteQpn);
        assertEquals(List.of(), rig.decomposition);
    }

    @Test
    void aPeerThatCannotRecreateItsQpGetsARefusalThatFencesThePath() throws Exception {
        manager(false, L0, L1);
        established(2);
        verbs.createFails = true;
        paths.onRepairPath(body(new RepairPath(7, 0x501, 5000, 0x888, 3, 512)::encode));
        AddPathNak nak = AddPathNak.decode(onlyFrame(Protocol.REPAIR_NAK).body());
        assertEquals(7, nak.requestId());
        assertTrue(nak.reason().startsWith("cannot re-create the QP: "), nak.reason());
    }

    @Test
    void aRefusedRepairIsRetriedAndFencesThePathOnlyIfThePeerDestroyedItsQp() throws Exception {
        manager(true, L0, L1);
        PathSlot s = established(2).get(1);
        int id = requestRepairOfPath1();
        rig.table.clock(5 * MIN);
        paths.onRepairNak(body(new AddPathNak(id + 1, "other request")::encode));
        assertFalse(verbs.last().closed, "not ours");
        paths.onRepairNak(body(new AddPathNak(id, "no such path")::encode));
        assertTrue(verbs.last().closed);
        assertNull(s.repairQp);
        assertEquals(5 * MIN + 2 * MIN, s.nextRepairAt);
        assertEquals(List.of(), rig.decomposition, "the peer's QP still exists: no fence");

        paths.duty(7 * MIN);
        id = RepairPath.decode(onlyFrame(Protocol.REPAIR_PATH).body()).requestId();
        paths.onRepairNak(body(new AddPathNak(id, "cannot re-create the QP: out of memory")::encode));
        assertEquals(List.of("pathFenced 1"), rig.decomposition);
        assertTrue(verbs.last().closed);
    }

    @Test
    void aRepairAckWhoseQpCannotConnectRetriesLater() throws Exception {
        manager(true, L0, L1);
        PathSlot s = established(2).get(1);
        int id = requestRepairOfPath1();
        verbs.connectFails = true;
        rig.table.clock(4 * MIN);
        paths.onRepairAck(body(new AddPathAck(id, 5000, 0x777, 9, 1024)::encode));
        assertEquals(List.of("pathFenced 1"), rig.decomposition, "the peer's old QP is gone anyway");
        assertEquals(PathState.RECOVERING, rig.table.state(1));
        assertEquals(4 * MIN + 2 * MIN, s.nextRepairAt);
        assertEquals(List.of(), rig.frames());
    }

    // ---------------------------------------------------------------- adding

    @Test
    void anAddedPathJoinsWhenThePeerAnswers() throws Exception {
        manager(true, L0, L1);
        established(1);
        CompletableFuture<Integer> f = new CompletableFuture<>();
        paths.requestAdd(L1, R0, f, 1000);
        assertFalse(f.isDone());
        AddPath m = AddPath.decode(onlyFrame(Protocol.ADD_PATH).body());
        ScriptedVerbs.Qp qp = verbs.last();
        assertEquals(L1, m.initiator());
        assertEquals(R0, m.responder());
        assertEquals(qp.qpn, m.qpn());
        assertEquals(ScriptedVerbs.UDP_PORT, m.udpPort());
        assertEquals(1024, m.mtu());
        assertTrue(paths.timersPending());

        paths.onAddPathAck(body(new AddPathAck(m.requestId(), 5000, 0x666, 5, 2048)::encode));
        assertEquals(1, f.get());
        assertEquals(List.of(IbvQpState.INIT, IbvQpState.RTR, IbvQpState.RTS), qp.states);
        PathSlot s = paths.slot(1);
        assertEquals(0x666, s.remoteQpn);
        assertEquals(1024, s.mtu);
        assertEquals(List.of("added 1"), events);
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertEquals(qp.qpn, PathRef.decode(onlyFrame(Protocol.PATH_READY).body()).qpn());
        assertFalse(paths.timersPending());
        assertThrows(ProtocolException.class,
                () -> paths.onAddPathAck(body(new AddPathAck(m.requestId(), 5000, 0x666, 5, 2048)::encode)));

        CompletableFuture<Integer> g = new CompletableFuture<>();
        paths.requestAdd(L1, R0, g, 1000);
        assertEquals(m.requestId() + 1, AddPath.decode(onlyFrame(Protocol.ADD_PATH).body()).requestId());
    }

    @Test
    void aRefusedOrUnansweredAdditionFailsAndReleasesItsQp() throws Exception {
        manager(true, L0, L1);
        established(1);
        CompletableFuture<Integer> refused = new CompletableFuture<>();
        paths.requestAdd(L1, R0, refused, 0);
        int id = AddPath.decode(onlyFrame(Protocol.ADD_PATH).body()).requestId();
        paths.onAddPathNak(body(new AddPathNak(id, "busy")::encode));
        VirtuosoException e = failure(refused);
        assertEquals(Reason.NO_PATH, e.reason());
        assertTrue(e.getMessage().contains("busy"), e.getMessage());
        assertTrue(verbs.last().closed);
        assertThrows(ProtocolException.class, () -> paths.onAddPathNak(body(new AddPathNak(id, "x")::encode)));

        CompletableFuture<Integer> late = new CompletableFuture<>();
        paths.requestAdd(L1, R0, late, 1000);
        rig.frames();
        assertEquals(0, paths.duty(1000 + HANDSHAKE));
        assertFalse(late.isDone());
        assertFalse(verbs.last().closed);
        assertEquals(1, paths.duty(1000 + HANDSHAKE + 1));
        assertEquals(Reason.TIMEOUT, failure(late).reason());
        assertTrue(verbs.last().closed);
        assertFalse(paths.timersPending());

        CompletableFuture<Integer> unconnectable = new CompletableFuture<>();
        paths.requestAdd(L1, R0, unconnectable, 0);
        int id3 = AddPath.decode(onlyFrame(Protocol.ADD_PATH).body()).requestId();
        verbs.connectFails = true;
        paths.onAddPathAck(body(new AddPathAck(id3, 5000, 0x666, 5, 2048)::encode));
        assertEquals(Reason.VERBS, failure(unconnectable).reason());
        assertTrue(verbs.last().closed);
        assertEquals(List.of(), rig.frames());
        assertEquals(1, rig.table.pathCount());
    }

    @Test
    void additionsAreRefusedForForeignAddressesAFullTableOrAClosedChannel() throws Exception {
        manager(true, L0);
        CompletableFuture<Integer> foreign = new CompletableFuture<>();
        paths.requestAdd(Fabric.ip("10.9.9.9"), R0, foreign, 0);
        assertEquals(Reason.NO_PATH, failure(foreign).reason());
        CompletableFuture<Integer> notAllowed = new CompletableFuture<>();
        paths.requestAdd(L1, R0, notAllowed, 0);
        assertEquals(Reason.NO_PATH, failure(notAllowed).reason(), "a vNIC the connection may not use");
        assertEquals(0, verbs.qps.size());

        established(6);
        CompletableFuture<Integer> seventh = new CompletableFuture<>();
        CompletableFuture<Integer> eighth = new CompletableFuture<>();
        paths.requestAdd(L0, R0, seventh, 0);
        paths.requestAdd(L0, R0, eighth, 0);
        assertFalse(seventh.isDone());
        assertFalse(eighth.isDone(), "6 paths and 2 pending fill the table of 8");
        CompletableFuture<Integer> ninth = new CompletableFuture<>();
        paths.requestAdd(L0, R0, ninth, 0);
        VirtuosoException full = failure(ninth);
        assertEquals(Reason.NO_PATH, full.reason());
        assertTrue(full.getMessage().contains("already has 8 paths"), full.getMessage());
        rig.frames();

        paths.closeAll("test");
        assertEquals(Reason.CLOSED, failure(seventh).reason());
        assertEquals(Reason.CLOSED, failure(eighth).reason());
        assertTrue(verbs.qps.stream().allMatch(q -> q.closed), "every QP released");
        for (int p = 0; p < rig.table.pathCount(); p++) {
            assertEquals(PathState.DOWN, rig.table.state(p));
        }
        assertFalse(paths.timersPending());
    }

    @Test
    void anAdditionThatCannotBeSentFails() throws Exception {
        manager(true, L0);
        rig.fillRing();
        CompletableFuture<Integer> f = new CompletableFuture<>();
        paths.requestAdd(L0, R0, f, 0);
        assertEquals(Reason.IO, failure(f).reason());
        assertTrue(verbs.last().closed);
        assertFalse(paths.timersPending());
    }

    @Test
    void theResponderAnswersAnAdditionAndAddsThePathOnPathReady() throws Exception {
        manager(false, L0, L1);
        established(1);
        paths.onAddPath(body(new AddPath(5, R0, L1, 5000, 0x444, 6, 2048)::encode), 0);
        ScriptedVerbs.Qp qp = verbs.last();
        AddPathAck ack = AddPathAck.decode(onlyFrame(Protocol.ADD_PATH_ACK).body());
        assertEquals(5, ack.requestId());
        assertEquals(qp.qpn, ack.qpn());
        assertEquals(ScriptedVerbs.UDP_PORT, ack.udpPort());
        assertEquals(List.of(IbvQpState.INIT, IbvQpState.RTR, IbvQpState.RTS), qp.states);
        assertEquals(1, rig.table.pathCount(), "joins on PATH_READY");
        assertTrue(paths.timersPending());

        assertThrows(ProtocolException.class, () -> paths.onPathReady(body(new PathRef(0x445)::encode)));
        paths.onPathReady(body(new PathRef(0x444)::encode));
        assertEquals(2, rig.table.pathCount());
        assertEquals(PathState.UP, rig.table.state(1));
        assertEquals(List.of("added 1"), events);
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertEquals(0x444, paths.slot(1).remoteQpn);
        assertEquals(1024, paths.slot(1).mtu);
        assertFalse(paths.timersPending());
    }

    /** A peer that adds paths and never confirms them gets them destroyed at the handshake timeout. */
    @Test
    void anAdditionThePeerNeverConfirmsIsDestroyedAtTheHandshakeTimeout() throws Exception {
        manager(false, L0, L1);
        established(1);
        paths.onAddPath(body(new AddPath(5, R0, L1, 5000, 0x444, 6, 2048)::encode), 1000);
        ScriptedVerbs.Qp qp = verbs.last();
        assertEquals(5, AddPathAck.decode(onlyFrame(Protocol.ADD_PATH_ACK).body()).requestId());
        assertTrue(paths.timersPending());
        assertEquals(0, paths.duty(1000 + HANDSHAKE), "not before the deadline");
        assertFalse(qp.closed);
        assertEquals(1, paths.duty(1000 + HANDSHAKE + 1));
        assertTrue(qp.closed, "its QP destroyed");
        assertEquals(1, paths.joinsExpired());
        assertFalse(paths.timersPending(), "no timer keeps the connection awake");
        assertThrows(ProtocolException.class, () -> paths.onPathReady(body(new PathRef(0x444)::encode)),
                "a late PATH_READY is a protocol violation");
        assertEquals(1, rig.table.pathCount(), "the path never joined");
    }

    @Test
    void theResponderRefusesAdditionsItCannotTake() throws Exception {
        manager(false, L0, L1);
        paths.onAddPath(body(new AddPath(5, R0, Fabric.ip("10.9.9.9"), 5000, 0x444, 6, 2048)::encode), 0);
        AddPathNak nak = AddPathNak.decode(onlyFrame(Protocol.ADD_PATH_NAK).body());
        assertEquals(5, nak.requestId());
        assertTrue(nak.reason().contains("10.9.9.9"), nak.reason());

        verbs.connectFails = true;
        paths.onAddPath(body(new AddPath(6, R0, L1, 5000, 0x444, 6, 2048)::encode), 0);
        assertEquals(6, AddPathNak.decode(onlyFrame(Protocol.ADD_PATH_NAK).body()).requestId());
        assertTrue(verbs.last().closed);
        verbs.connectFails = false;

        rig.fillRing();
        paths.onAddPath(body(new AddPath(7, R0, L1, 5000, 0x444, 6, 2048)::encode), 0);
        assertTrue(verbs.last().closed, "an answer that cannot be sent releases the QP");
        assertFalse(paths.timersPending());
        rig.channel.outbound.commitRead(rig.channel.outbound.readable());

        established(6);
        paths.onAddPath(body(new AddPath(8, R0, L1, 5000, 0x444, 6, 2048)::encode), 0);
        paths.onAddPath(body(new AddPath(9, R0, L1, 5000, 0x445, 6, 2048)::encode), 0);
        assertEquals(2, rig.frames().stream().filter(f -> f.type() == Protocol.ADD_PATH_ACK).count());
        paths.onAddPath(body(new AddPath(10, R0, L1, 5000, 0x446, 6, 2048)::encode), 0);
        AddPathNak full = AddPathNak.decode(onlyFrame(Protocol.ADD_PATH_NAK).body());
        assertTrue(full.reason().contains("already has 8 paths"), full.reason());
        paths.closeAll("test");
        assertTrue(verbs.qps.stream().allMatch(q -> q.closed), "joining paths' QPs released");
        assertFalse(paths.timersPending(), "nothing joins any more");
    }

    @Test
    void aFullTableCountsAdditionsInBothDirections() throws Exception {
        manager(false, L0, L1);
        established(6);
        paths.onAddPath(body(new AddPath(8, R0, L1, 5000, 0x444, 6, 2048)::encode), 0);
        paths.onAddPath(body(new AddPath(9, R0, L1, 5000, 0x445, 6, 2048)::encode), 0);
        rig.frames();
        CompletableFuture<Integer> f = new CompletableFuture<>();
        paths.requestAdd(L0, R0, f, 0);
        assertTrue(failure(f).getMessage().contains("already has 8 paths"), "6 paths and 2 joining fill the table");

        manager(true, L0, L1);
        paths.requestAdd(L0, R0, new CompletableFuture<>(), 0);
        paths.requestAdd(L0, R0, new CompletableFuture<>(), 0);
        rig.frames();
        paths.onAddPath(body(new AddPath(10, R0, L1, 5000, 0x446, 6, 2048)::encode), 0);
        AddPathNak full = AddPathNak.decode(onlyFrame(Protocol.ADD_PATH_NAK).body());
        assertTrue(full.reason().contains("already has 8 paths"), "6 paths and 2 pending: " + full.reason());
    }

    @Test
    void everyScanStopsAtTheLastPathOfAFullTable() throws Exception {
        manager(true, L0, L1);
        established(8);
        assertEquals(0, paths.duty(0));
        assertFalse(paths.timersPending());
        paths.onRepairAck(body(new AddPathAck(99, 5000, 0x777, 9, 1024)::encode));
        paths.onRepairNak(body(new AddPathNak(99, "x")::encode));
        paths.onPathDrained(body(new PathRef(0x5FF)::encode));
        paths.onRemovePath(body(new PathRef(0x5FF)::encode), 0);
        assertEquals(4, paths.controlIgnored(), "frames about paths or requests not here are counted, then dropped");
        assertThrows(ProtocolException.class, () -> paths.onPathReady(body(new PathRef(0x5FF)::encode)));
        paths.onRepairPath(body(new RepairPath(7, 0x5FF, 5000, 0x888, 3, 512)::encode));
        assertEquals("no such path", AddPathNak.decode(onlyFrame(Protocol.REPAIR_NAK).body()).reason());
        remove(7).get();
        assertEquals(PathState.DOWN, rig.table.state(7));
        assertEquals(8, paths.stats().size());
        assertTrue(paths.chunks() != null);
        paths.closeAll("test");
        for (int p = 0; p < 8; p++) {
            assertEquals(PathState.DOWN, rig.table.state(p));
        }
        assertTrue(verbs.qps.stream().allMatch(q -> q.closed), "every QP released");
    }

    @Test
    void removingARecoveringPathDropsItsRepairRequest() throws Exception {
        manager(true, L0, L1);
        PathSlot s = established(2).get(1);
        int id = requestRepairOfPath1();
        ScriptedVerbs.Qp repair = verbs.last();
        remove(1).get();
        assertTrue(repair.closed, "the repair's QP is released");
        assertNull(s.repairQp);
        rig.decomposition.clear();
        paths.onRepairAck(body(new AddPathAck(id, 5000, 0x777, 9, 1024)::encode));
        assertEquals(List.of(), rig.decomposition, "the late answer finds nothing");
        assertEquals(PathState.DOWN, rig.table.state(1));
    }

    // ---------------------------------------------------------------- removing

    @Test
    void aRemovedPathIsDestroyedOnceBothSidesAreDrained() throws Exception {
        manager(true, L0, L1);
        List<PathSlot> s = established(2);
        ScriptedVerbs.Qp qp = verbs.byQpn(s.get(1).qp.qpNum());
        assertThrows(ExecutionException.class, () -> remove(-1).get());
        assertThrows(ExecutionException.class, () -> remove(8).get());
        rig.table.onPosted(1, 100);
        remove(1).get();
        assertEquals(PathState.DOWN, rig.table.state(1));
        assertEquals(List.of("state 1 DOWN"), events);
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertEquals(qp.qpn, PathRef.decode(onlyFrame(Protocol.REMOVE_PATH).body()).qpn());
        assertThrows(ExecutionException.class, () -> remove(1).get(), "removed twice");
        VirtuosoException last = (VirtuosoException) assertThrows(ExecutionException.class, () -> remove(0).get())
                .getCause();
        assertEquals(Reason.NO_PATH, last.reason());
        assertTrue(paths.timersPending());
        events.clear();
        rig.decomposition.clear();

        assertEquals(0, paths.duty(1000), "a chunk is still in flight");
        assertEquals(List.of(), rig.frames());
        rig.table.onCompleted(1, 100, 1000, true);
        assertEquals(1, paths.duty(1000));
        assertEquals(qp.qpn, PathRef.decode(onlyFrame(Protocol.PATH_DRAINED).body()).qpn());
        assertEquals(0, paths.duty(1000), "sent once");
        assertEquals(List.of(), rig.frames());
        assertFalse(qp.closed, "the peer is not drained yet");

        paths.onPathDrained(body(new PathRef(0x5FF)::encode));
        assertEquals(0, paths.duty(1000));
        paths.onPathDrained(body(new PathRef(0x501)::encode));
        assertEquals(1, paths.duty(1000));
        assertEquals(IbvQpState.ERR, qp.state());
        assertTrue(qp.closed);
        assertEquals(List.of("abandonPath 1", "pathFenced 1"), rig.decomposition);
        assertEquals(List.of("abandoned 1"), events);
        assertEquals(1, rig.table.slotsInUse(), "the slot is free for a later addition");
        assertFalse(paths.timersPending());
        assertEquals(0, paths.duty(1000));
    }

    @Test
    void aRemovalThePeerStartsEndsAtItsDeadlineWithoutItsDrain() throws Exception {
        manager(false, L0, L1);
        List<PathSlot> s = established(2);
        ScriptedVerbs.Qp qp = verbs.byQpn(s.get(1).qp.qpNum());
        paths.onRemovePath(body(new PathRef(0x501)::encode), 1000);
        assertEquals(PathState.DOWN, rig.table.state(1));
        assertEquals(List.of("pathsChanged"), rig.decomposition);
        assertEquals(List.of(), rig.frames(), "no REMOVE_PATH back");
        paths.onRemovePath(body(new PathRef(0x501)::encode), 1000);
        assertEquals(List.of("pathsChanged"), rig.decomposition, "once");
        rig.decomposition.clear();

        assertEquals(1, paths.duty(1000));
        onlyFrame(Protocol.PATH_DRAINED);
        assertEquals(0, paths.duty(1000 + HANDSHAKE));
        assertFalse(qp.closed);
        assertEquals(1, paths.duty(1000 + HANDSHAKE + 1));
        assertTrue(qp.closed);
        assertEquals(List.of("abandonPath 1", "pathFenced 1"), rig.decomposition);
    }

    private CompletableFuture<Void> remove(int id) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        paths.requestRemove(id, f, 1000);
        return f;
    }

    // ---------------------------------------------------------------- statistics

    @Test
    void statisticsReportRetransmissionsWhileTheQpExists() throws Exception {
        manager(true, L0, L1);
        List<PathSlot> s = established(3);
        verbs.byQpn(s.get(0).qp.qpNum()).retransmitted = 42;
        verbs.byQpn(s.get(1).qp.qpNum()).countersFail = true;
        s.get(2).destroy();
        List<PathStats> st = paths.stats();
        assertEquals(3, st.size());
        assertEquals(42, st.get(0).retransmissions());
        assertEquals(-1, st.get(1).retransmissions(), "counters that fail read as unknown");
        assertEquals(-1, st.get(2).retransmissions(), "a destroyed QP has none");
        assertEquals(s.get(0).local, st.get(0).localAddress());
        assertEquals(s.get(0).remote, st.get(0).remoteAddress());
        assertSame(s.get(0), paths.slot(0));
        assertNull(paths.slot(-1));
        assertNull(paths.slot(8));
        assertNull(paths.slot(7));
    }
}
