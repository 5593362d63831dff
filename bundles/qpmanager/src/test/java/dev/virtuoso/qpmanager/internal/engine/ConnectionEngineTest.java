package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.decomposer.DecompositionCounters;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.qpmanager.internal.bootstrap.Fields;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The connection engine's duty cycle on the test's thread: requests, completions, control frames,
 * commands, the CQ arming and quiet hand-shake with its agent, timers and every way a connection
 * ends, over an {@link EngineRig} (scripted CQ, decomposition and reassembly; a control channel no
 * I/O thread touches).
 */
class ConnectionEngineTest {
    private static final RemoteMemory REMOTE = new RemoteMemory(0x700000, 0x55, 1 << 20);

    private EngineRig rig;
    private ConnectionEngine e;

    @BeforeEach
    void rig() throws Exception {
        rig = new EngineRig();
        e = rig.engine;
    }

    @AfterEach
    void close() {
        rig.close();
    }

    private static void assertSpec(MessageSpec s, long wrId, MpOpcode op, IbvWrOpcode chunkOp, long local, long length,
            long remote, int rkey, long tag) {
        assertEquals(wrId, s.wrId(), "wrId");
        assertEquals(op, s.opcode(), "opcode");
        assertEquals(chunkOp, s.chunkOpcode(), "chunk opcode");
        assertEquals(local, s.localAddr(), "local address");
        assertEquals(EngineRig.MR_LKEY, s.lkey(), "lkey");
        assertEquals(length, s.length(), "length");
        assertEquals(remote, s.remoteAddr(), "remote address");
        assertEquals(rkey, s.rkey(), "rkey");
        assertEquals(tag, s.tag(), "tag");
    }

    private void assertEnded(ConnectionState state, String reason) {
        assertTrue(e.ended(), "ended");
        assertTrue(e.finished(), "finished");
        assertEquals(state, rig.conn.state());
        assertEquals(reason, rig.conn.endReason());
        assertEquals(List.of(rig.conn), rig.closed, "observer told once");
        assertEquals(0, rig.agent.load(), "unassigned from its agent");
        assertTrue(rig.cqClosed, "verbs resources released");
        assertTrue(rig.calls.contains("close"), "decomposition closed: " + rig.calls);
        assertTrue(rig.reassemblyCalls.contains("close"), "reassembly closed: " + rig.reassemblyCalls);
        assertTrue(rig.reassemblyCalls.contains("flush FLUSHED"), "receives flushed: " + rig.reassemblyCalls);
        assertFalse(rig.socket.isOpen(), "control channel closed");
        assertTrue(rig.qpClosed, "paths closed");
        assertEquals(0, e.duty(), "an ended engine does nothing");
    }

    private void assertEndedWith(ConnectionState state, String reasonStart) {
        assertTrue(e.ended(), "ended");
        assertEquals(state, rig.conn.state());
        assertTrue(rig.conn.endReason().startsWith(reasonStart), rig.conn.endReason());
        assertEquals(List.of(rig.conn), rig.closed);
    }

    private String disconnectReason() throws Exception {
        List<LinkRig.Frame> f = rig.frames();
        assertEquals(1, f.size(), "frames");
        assertEquals(Protocol.DISCONNECT, f.get(0).type());
        return Fields.text(f.get(0).body());
    }

    // ---------------------------------------------------------------- construction

    @Test
    void theDecompositionHasRoomForEveryRequestNoticeAndTheControlMessage() {
        assertEquals(16 + EngineRig.MAX_RECEIVES + 1, rig.config.maxMessages(), "and the one control message");
        assertEquals(16 + EngineRig.MAX_RECEIVES + 1, ConnectionEngine.maxMessages(rig.options, e.reassembly()));
        assertEquals(WrIdTags.CHUNK, rig.config.wrIdTag());
        assertEquals("c1", rig.conn.id());
        assertEquals(rig.setup.reassembly, e.reassembly());
        assertTrue(e.decomposition().toString().contains("scripted"), "the decomposer's decomposition");
        assertEquals(rig.conn, e.connection());
        assertEquals(rig.setup.slots.get(0), e.paths().slot(0), "the established path");
        assertEquals(0x301, e.paths().slot(0).qp.qpNum());
        assertFalse(e.monitor().monitored());
        assertTrue(e.policies() != null && e.registry() != null);
        assertEquals(1, e.pathStatsNow().size(), "one path");
        assertEquals(3, e.pathStatsNow().get(0).retransmissions(), "its QP's counters");
        assertEquals(ConnectionState.ESTABLISHED, rig.conn.state());
        assertFalse(e.ended());
        assertFalse(e.finished());
    }

    @Test
    void anIdleCycleDoesNothing() {
        assertEquals(0, e.duty());
        assertFalse(e.takeDataWork());
        assertEquals(List.of(), rig.submitted);
        assertEquals(Long.MAX_VALUE, e.timer(0));
        assertFalse(e.ended());
    }

    // ---------------------------------------------------------------- requests

    @Test
    void aWriteGoesToTheDecompositionWithAbsoluteAddresses() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.conn.postWrite(7, r, 16, 100, REMOTE, 8);
        assertEquals(1, e.duty());
        assertEquals(1, rig.submitted.size());
        assertSpec(rig.submitted.get(0), 7, MpOpcode.WRITE, IbvWrOpcode.RDMA_WRITE, EngineRig.MR_ADDR + 16, 100,
                REMOTE.address() + 8, REMOTE.rkey(), 0);
        assertTrue(e.takeDataWork(), "a request is data-path work");
        assertFalse(e.takeDataWork(), "taken once");
        assertEquals(0, e.duty(), "the request left the ring");
        assertFalse(e.takeDataWork());
    }

    @Test
    void aReadGoesToTheDecomposition() throws Exception {
        MemoryRegion r = rig.region(4096, Access.LOCAL_WRITE);
        rig.conn.postRead(9, r, 32, 200, REMOTE, 4);
        assertEquals(1, e.duty());
        assertSpec(rig.submitted.get(0), 9, MpOpcode.READ, IbvWrOpcode.RDMA_READ, EngineRig.MR_ADDR + 32, 200,
                REMOTE.address() + 4, REMOTE.rkey(), 0);
    }

    @Test
    void aReceiveGoesToTheReassemblyWithItsRegionsRemoteWritability() throws Exception {
        MemoryRegion w = rig.region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion l = rig.region(4096, Access.LOCAL_WRITE);
        rig.conn.postRecv(3, w, 64, 128);
        rig.conn.postRecv(4, l, 8, 16);
        assertEquals(2, e.duty());
        assertEquals(List.of("postReceive 3 buffer 64 128 " + (EngineRig.MR_ADDR + 64) + " " + EngineRig.MR_RKEY
                + " true", "postReceive 4 buffer 8 16 " + (EngineRig.MR_ADDR + 8) + " " + EngineRig.MR_RKEY
                + " false"), rig.reassemblyCalls);
        assertTrue(e.takeDataWork());
    }

    @Test
    void aRequestOnAClosedRegionFailsWithItsOwnOpcode() throws Exception {
        MemoryRegion r = rig.region(4096, Access.LOCAL_WRITE);
        rig.conn.postWrite(1, r, 0, 10, REMOTE, 0);
        rig.conn.postRead(2, r, 0, 10, REMOTE, 0);
        rig.conn.postSend(3, r, 0, 10);
        rig.conn.postRecv(4, r, 0, 10);
        r.close();
        assertEquals(4, e.duty());
        List<MpCompletion> c = rig.completions();
        assertEquals(4, c.size(), c.toString());
        MpOpcode[] ops = {MpOpcode.WRITE, MpOpcode.READ, MpOpcode.SEND, MpOpcode.RECV};
        for (int i = 0; i < 4; i++) {
            assertEquals(i + 1, c.get(i).wrId());
            assertEquals(ops[i], c.get(i).opcode());
            assertEquals(MpStatus.LOCAL_PROTECTION_ERROR, c.get(i).status());
            assertEquals("region closed", c.get(i).detail());
        }
        assertEquals(List.of(), rig.submitted);
        assertEquals(List.of(), rig.reserved, "no send was started");
    }

    @Test
    void aCycleTakesAtMostABatchOfRequests() throws Exception {
        rig.close();
        rig = new EngineRig(dev.virtuoso.api.ConnectOptions.builder().maxOutstanding(300).build());
        e = rig.engine;
        MemoryRegion r = rig.region(4096);
        for (int i = 0; i < 300; i++) {
            rig.conn.postWrite(i, r, 0, 1, REMOTE, 0);
        }
        assertEquals(256, e.duty());
        assertEquals(256, rig.submitted.size());
        assertEquals(44, e.duty());
        assertEquals(300, rig.submitted.size());
        assertEquals(299, rig.submitted.get(299).wrId());
    }

    // ---------------------------------------------------------------- sends

    @Test
    void aSendWaitsForTheReassemblysTargetAndKeepsTheEngineBusy() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.conn.postSend(5, r, 10, 40);
        assertEquals(1, e.duty(), "taken, not started");
        assertEquals(List.of(40L), rig.reserved);
        assertEquals(List.of(), rig.submitted);
        assertEquals(1000 + ConnectionEngine.BUSY_TICK_NANOS, e.timer(1000), "a pending send needs a tick");
        assertTrue(e.describe().contains("pendingSends=true"), e.describe());
        rig.reserve.add(new Object[] {Reassembly.SMALL, 6L, 0x1234, 0L, 0, false});
        assertEquals(1, e.duty(), "started now");
        assertEquals(List.of(40L, 40L), rig.reserved);
        assertSpec(rig.submitted.get(0), 5, MpOpcode.SEND, IbvWrOpcode.SEND_WITH_IMM, EngineRig.MR_ADDR + 10, 40,
                rig.submitted.get(0).remoteAddr(), rig.submitted.get(0).rkey(), 6L << 2 | ConnectionEngine.SEND_SMALL);
        assertEquals(0x1234, rig.submitted.get(0).immData());
        assertEquals(Long.MAX_VALUE, e.timer(1000));
        assertTrue(e.describe().contains("pendingSends=false"), e.describe());
        assertEquals(0, e.duty());
        assertEquals(2, rig.reserved.size(), "nothing left to reserve");
    }

    @Test
    void aSmallSendIntoARemotelyWritableBufferIsAWriteWithImmediate() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.reserve.add(new Object[] {Reassembly.SMALL, 3L, 0x99, 0x5000L, 0x66, true});
        rig.conn.postSend(5, r, 0, 40);
        assertEquals(2, e.duty(), "taken and started");
        assertSpec(rig.submitted.get(0), 5, MpOpcode.SEND, IbvWrOpcode.RDMA_WRITE_WITH_IMM, EngineRig.MR_ADDR, 40,
                0x5000L, 0x66, 3L << 2 | ConnectionEngine.SEND_SMALL);
        assertEquals(0x99, rig.submitted.get(0).immData());
    }

    @Test
    void aPostingCycleStartsTheRequestsWithoutPollingTheCq() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.reserve.add(new Object[] {Reassembly.SMALL, 3L, 0x99, 0x5000L, 0x66, true});
        rig.cqe(WrIdTags.CHUNK | 1);
        rig.polls = 0;
        rig.conn.postSend(5, r, 0, 40);
        assertEquals(2, e.post(), "taken and started");
        assertSpec(rig.submitted.get(0), 5, MpOpcode.SEND, IbvWrOpcode.RDMA_WRITE_WITH_IMM, EngineRig.MR_ADDR, 40,
                0x5000L, 0x66, 3L << 2 | ConnectionEngine.SEND_SMALL);
        assertEquals(0, rig.polls, "the CQ was not polled");
        assertEquals(List.of(), rig.chunkCompletions);
        assertTrue(e.takeDataWork(), "a request is data-path work");
        assertEquals(0, e.post(), "no request left");
        assertEquals(1, e.duty(), "the duty cycle polls");
        assertEquals(List.of(WrIdTags.CHUNK | 1), rig.chunkCompletions);
    }

    @Test
    void aSendPostedDuringAnotherThreadsCycleIsTakenWhenThatCycleEnds() throws Exception {
        EngineAgent agent = rig.agent;
        e.start();
        AtomicBoolean over = new AtomicBoolean();
        // a helper plays the agent's thread: it stands back while this thread polls
        Thread agentThread = new Thread(() -> {
            while (!over.get()) {
                if (!agent.standBack()) {
                    Thread.onSpinWait();
                }
            }
        }, "engine-test-agent");
        agentThread.start();
        MemoryRegion r = rig.region(4096);
        try {
            // the scenario needs the helper standing back when the SEND is posted (a 2-core machine
            // may hold this thread up past the lease): tried until it was
            for (int attempt = 0; attempt < 20; attempt++) {
                long wrId = 100 + attempt;
                rig.reserve.add(new Object[] {Reassembly.SMALL, 3L + attempt, 0x99, 0x5000L, 0x66, true});
                CountDownLatch go = new CountDownLatch(1);
                CountDownLatch posted = new CountDownLatch(1);
                boolean[] standingBack = new boolean[1];
                Throwable[] failed = new Throwable[1];
                Thread poster = new Thread(() -> {
                    try {
                        go.await();
                        standingBack[0] = agent.standingBack();
                        rig.conn.postSend(wrId, r, 0, 40);
                    } catch (Throwable t) {
                        failed[0] = t;
                    } finally {
                        posted.countDown();
                    }
                }, "engine-test-poster");
                poster.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!agent.standingBack()) {
                    agent.invoke(null);
                    assertTrue(System.nanoTime() - deadline < 0, "the agent's thread never stood back");
                }
                // inside this thread's cycle, past its taking of the requests, the other thread posts
                rig.onPoll = () -> {
                    go.countDown();
                    try {
                        assertTrue(posted.await(10, TimeUnit.SECONDS));
                    } catch (InterruptedException x) {
                        throw new AssertionError(x);
                    }
                };
                e.wake(); // gone quiet meanwhile (no backoff window in the rig): the next cycle runs it
                int before = rig.submitted.size();
                agent.invoke(null);
                poster.join(10_000);
                assertEquals(null, rig.onPoll, "the cycle did not poll the CQ");
                assertEquals(null, failed[0]);
                if (!standingBack[0]) {
                    continue; // the agent's thread (a helper that runs nothing) had the request
                }
                assertEquals(before + 1, rig.submitted.size(), "the SEND was not taken when the cycle ended");
                assertEquals(wrId, rig.submitted.get(before).wrId());
                return;
            }
            throw new AssertionError("the agent's thread was never standing back at the post");
        } finally {
            over.set(true);
            agentThread.join(10_000);
        }
    }

    @Test
    void aPostingCycleLeavesAFailureToTheDutyCycle() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.conn.postWrite(1, r, 0, 10, REMOTE, 0);
        rig.scheduleFails = new IllegalStateException("scripted");
        assertEquals(1, e.post(), "failed");
        assertFalse(e.ended(), "not ended in the poster's thread");
        assertEquals(0, e.post(), "a failed engine posts nothing more");
        e.duty();
        assertEnded(ConnectionState.FAILED, "engine failure: java.lang.IllegalStateException: scripted");
        assertEquals(0, e.post(), "an ended engine posts nothing");
    }

    @Test
    void aLargeSendIsWrittenIntoThePeersBuffer() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.reserve.add(new Object[] {Reassembly.LARGE, 4L, 0, 0x8000L, 0x67, true});
        rig.conn.postSend(8, r, 100, 3000);
        assertEquals(2, e.duty());
        assertSpec(rig.submitted.get(0), 8, MpOpcode.SEND, IbvWrOpcode.RDMA_WRITE, EngineRig.MR_ADDR + 100, 3000,
                0x8000L, 0x67, 4L << 2 | ConnectionEngine.SEND_LARGE);
        assertTrue(rig.submitted.get(0).split(), "a large message is split");
    }

    @Test
    void aSendThePeerCannotTakeFailsAtOnce() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.reserve.add(new Object[] {Reassembly.TOO_LONG});
        rig.reserve.add(new Object[] {Reassembly.NOT_WRITABLE});
        rig.conn.postSend(1, r, 0, 2000);
        rig.conn.postSend(2, r, 0, 3000);
        assertEquals(4, e.duty());
        List<MpCompletion> c = rig.completions();
        assertEquals(2, c.size(), c.toString());
        assertEquals(1, c.get(0).wrId());
        assertEquals(MpOpcode.SEND, c.get(0).opcode());
        assertEquals(MpStatus.REMOTE_OPERATION_ERROR, c.get(0).status());
        assertEquals("message of 2000 bytes is longer than the peer's receive buffer", c.get(0).detail());
        assertEquals(2, c.get(1).wrId());
        assertEquals(MpOpcode.SEND, c.get(1).opcode());
        assertEquals(MpStatus.REMOTE_ACCESS_ERROR, c.get(1).status());
        assertEquals("the peer's receive buffer is not registered for remote write", c.get(1).detail());
        assertEquals(List.of(), rig.submitted);
        assertEquals(List.of(2000L, 3000L), rig.reserved);
    }

    // ---------------------------------------------------------------- notices

    @Test
    void aPlacementNoticeIsASmallSendTaggedWithItsSlot() {
        rig.notices.add(new PlacementNotice().set(5, 0x2000, 0x31, 24, 0x4242, 11));
        rig.notices.add(new PlacementNotice().set(6, 0x2100, 0x31, 24, 0x4343, 12));
        assertEquals(2, e.duty());
        assertEquals(2, rig.submitted.size());
        MessageSpec s = rig.submitted.get(0);
        assertEquals(0, s.wrId());
        assertEquals(MpOpcode.SEND, s.opcode());
        assertEquals(0x2000, s.localAddr());
        assertEquals(0x31, s.lkey());
        assertEquals(24, s.length());
        assertEquals(0x4242, s.immData());
        assertEquals(5L << 2 | ConnectionEngine.SEND_NOTICE, s.tag());
        assertEquals(6L << 2 | ConnectionEngine.SEND_NOTICE, rig.submitted.get(1).tag());
        assertFalse(rig.reassemblyCalls.stream().anyMatch(c -> c.startsWith("noticeFinished")), rig.reassemblyCalls
                .toString());
        assertFalse(e.takeDataWork(), "notices are not the application's data-path work");
    }

    @Test
    void aNoticeTheDecompositionRefusesFallsBackToTheControlChannel() {
        rig.submitAccepts = false;
        rig.notices.add(new PlacementNotice().set(7, 0x2000, 0x31, 24, 1, 11));
        assertEquals(1, e.duty());
        assertEquals(List.of("noticeFinished 7 PATH_FAILURE"), rig.reassemblyCalls);
    }

    @Test
    void pendingNoticesKeepTheEngineBusy() {
        rig.noticesPending = true;
        assertEquals(50 + ConnectionEngine.BUSY_TICK_NANOS, e.timer(50));
        rig.noticesPending = false;
        rig.messages = 1;
        assertEquals(50 + ConnectionEngine.BUSY_TICK_NANOS, e.timer(50));
        rig.messages = 0;
        rig.chunks = 1;
        assertEquals(-50 + ConnectionEngine.BUSY_TICK_NANOS, e.timer(-50));
        rig.chunks = 0;
        assertEquals(Long.MAX_VALUE, e.timer(50));
    }

    // ---------------------------------------------------------------- completions

    @Test
    void completionsGoToTheComponentThatPostedThem() {
        rig.cqe(WrIdTags.CHUNK | 1);
        rig.cqe(WrIdTags.SLOT | 2);
        rig.cqe(WrIdTags.CHUNK | 3);
        rig.cqe(5);
        rig.cqe(WrIdTags.PROBE | 4);
        assertEquals(5, e.duty());
        assertEquals(List.of(WrIdTags.CHUNK | 1, WrIdTags.CHUNK | 3), rig.chunkCompletions);
        assertEquals(List.of(WrIdTags.SLOT | 2), rig.slotCompletions);
        assertEquals(1, e.unknownCompletions(), "one completion nobody posted");
        assertTrue(e.describe().contains("unknownCqes=1"), e.describe());
        assertTrue(e.takeDataWork(), "completions are data-path work");
        assertEquals(0, e.duty());
    }

    @Test
    void aCyclePollsAFullCqUpToFourBatches() {
        for (int i = 0; i < 1100; i++) {
            rig.cqe(WrIdTags.CHUNK | i);
        }
        assertEquals(1024, e.duty(), "16 full polls");
        assertEquals(1024, rig.chunkCompletions.size());
        assertEquals(76, rig.cqe.size());
        assertEquals(76, e.duty());
        assertEquals(0, rig.cqe.size());
        rig.polls = 0;
        for (int i = 0; i < 64; i++) {
            rig.cqe(WrIdTags.CHUNK | i);
        }
        assertEquals(64, e.duty());
        assertEquals(2, rig.polls, "a full poll is followed by another");
        rig.polls = 0;
        for (int i = 0; i < 63; i++) {
            rig.cqe(WrIdTags.CHUNK | i);
        }
        assertEquals(63, e.duty());
        assertEquals(1, rig.polls, "a poll short of the array is the last");
    }

    @Test
    void aFailingCqFailsTheConnection() throws Exception {
        rig.pollFails = new VerbsException(5, "scripted");
        assertEquals(1, e.duty());
        assertEnded(ConnectionState.FAILED, "completion queue failed: scripted (errno 5)");
        assertEquals("completion queue failed: scripted (errno 5)", disconnectReason());
    }

    @Test
    void aPeerBreakingTheReassemblyProtocolInACompletionFailsTheConnection() throws Exception {
        rig.reassemblyFails = new ReassemblyException("bad slot");
        rig.cqe(WrIdTags.SLOT | 1);
        e.duty();
        assertEnded(ConnectionState.FAILED, "peer broke the reassembly protocol: bad slot");
    }

    @Test
    void theSinkReportsSendsToTheReassemblyAndNoticesOnlyThere() {
        var sink = rig.wiring.sink();
        sink.onMessageComplete(11, 6L << 2 | ConnectionEngine.SEND_SMALL, MpOpcode.SEND, MpStatus.SUCCESS, 40, 1, null);
        sink.onMessageComplete(12, 7L << 2 | ConnectionEngine.SEND_LARGE, MpOpcode.SEND, MpStatus.SUCCESS, 3000, 2, null);
        sink.onMessageComplete(0, 5L << 2 | ConnectionEngine.SEND_NOTICE, MpOpcode.SEND, MpStatus.PATH_FAILURE, 24, 1, null);
        sink.onMessageComplete(13, 9L << 2 | ConnectionEngine.SEND_LARGE, MpOpcode.WRITE, MpStatus.SUCCESS, 100, 1, "w");
        assertEquals(List.of("sendFinished 6 false SUCCESS 40 1", "sendFinished 7 true SUCCESS 3000 2",
                "noticeFinished 5 PATH_FAILURE"), rig.reassemblyCalls);
        List<MpCompletion> c = rig.completions();
        assertEquals(3, c.size(), c.toString());
        assertEquals(11, c.get(0).wrId());
        assertEquals(MpOpcode.SEND, c.get(0).opcode());
        assertEquals(40, c.get(0).byteLength());
        assertEquals(12, c.get(1).wrId());
        assertEquals(2, c.get(1).paths());
        assertEquals(13, c.get(2).wrId());
        assertEquals(MpOpcode.WRITE, c.get(2).opcode());
        assertEquals("w", c.get(2).detail());
    }

    // ---------------------------------------------------------------- control frames

    @Test
    void controlFramesAreReadInBatches() {
        for (int i = 0; i < 300; i++) {
            rig.inbound(Protocol.PING);
        }
        assertEquals(256, e.duty());
        assertEquals(44, e.duty());
        assertEquals(0, e.duty());
        assertFalse(e.ended());
        assertFalse(e.takeDataWork(), "control frames are not data-path work");
    }

    @Test
    void aReassemblyFrameOfVersionOneBreaksTheProtocol() {
        // the reassembly's records travel on the paths since protocol version 2
        rig.inbound(18, (byte) 1, (byte) 2, (byte) 3);
        e.duty();
        assertEnded(ConnectionState.FAILED,
                "peer broke the control protocol: unexpected " + Protocol.typeName(18) + " on the control channel");
    }

    @Test
    void aPingWithABodyBreaksTheProtocol() throws Exception {
        rig.inbound(Protocol.PING, (byte) 1);
        rig.inbound(Protocol.PING);
        e.duty();
        assertEndedWith(ConnectionState.FAILED, "peer broke the control protocol: ");
        assertEquals(rig.conn.endReason(), disconnectReason());
    }

    @Test
    void anUnexpectedFrameBreaksTheProtocol() {
        rig.inbound(Protocol.HELLO);
        e.duty();
        assertEnded(ConnectionState.FAILED,
                "peer broke the control protocol: unexpected " + Protocol.typeName(Protocol.HELLO)
                        + " on the control channel");
    }

    @Test
    void everyPathFrameGoesToItsHandler() throws Exception {
        // an empty body is malformed for each of them: the handler it reached says so
        int[] types = {Protocol.ADD_PATH, Protocol.ADD_PATH_ACK, Protocol.ADD_PATH_NAK, Protocol.PATH_READY,
            Protocol.REMOVE_PATH, Protocol.PATH_DRAINED, Protocol.REPAIR_PATH, Protocol.REPAIR_ACK,
            Protocol.REPAIR_NAK, Protocol.PROBES_DONE};
        for (int t : types) {
            rig.close();
            rig = new EngineRig();
            e = rig.engine;
            rig.inbound(t);
            e.duty();
            assertTrue(e.ended(), Protocol.typeName(t) + " reached a handler");
            assertEquals(ConnectionState.FAILED, rig.conn.state(), Protocol.typeName(t));
        }
    }

    @Test
    void thePeersDisconnectClosesAfterTakingWhatItSent() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.reserve.add(new Object[] {Reassembly.NOT_READY});
        rig.conn.postSend(9, r, 0, 10);
        rig.inbound(Protocol.DISCONNECT, (byte) 0, (byte) 0);
        rig.cqe(WrIdTags.SLOT | 3);
        e.duty();
        assertEnded(ConnectionState.CLOSED, "peer disconnected");
        assertEquals(List.of(WrIdTags.SLOT | 3), rig.slotCompletions, "the CQ was read before teardown");
        MpCompletion c = rig.onlyCompletion();
        assertEquals(9, c.wrId());
        assertEquals(MpStatus.FLUSHED, c.status());
        assertEquals(MpOpcode.SEND, c.opcode());
        assertEquals("peer disconnected", c.detail());
        assertEquals(List.of(), rig.frames(), "the peer is not told");
        assertTrue(rig.calls.contains("failAll [FLUSHED, peer disconnected, true]"), rig.calls.toString());
    }

    @Test
    void whyTheConnectionEndedIsKnownBeforeItsReceivesAreFlushed() throws Exception {
        // a thread that takes a flushed completion asks the connection why (bench does): the reason
        // must be set before the first flushed completion is published, not after the teardown
        String[] seen = {"not flushed"};
        rig.onFlush = () -> seen[0] = rig.conn.endReason();
        rig.inbound(Protocol.DISCONNECT, (byte) 0, (byte) 0);
        e.duty();
        assertEquals("peer disconnected", seen[0]);
        assertEnded(ConnectionState.CLOSED, "peer disconnected");
    }

    @Test
    void aBrokenChannelFailsTheConnectionAfterItsLastFrames() throws Exception {
        rig.inbound(Protocol.PING);
        rig.channel.loopStopped();
        rig.cqe(WrIdTags.CHUNK | 3);
        e.duty();
        assertEquals(0, rig.channel.inbound.readable(), "the frame before the end was read");
        assertEnded(ConnectionState.FAILED, "peer gone: control I/O stopped");
        assertEquals(List.of(WrIdTags.CHUNK | 3), rig.chunkCompletions);
        assertEquals(List.of(), rig.frames());
    }

    @Test
    void aDisconnectQueuedWithTheEndOfStreamIsStillAClose() throws Exception {
        rig.channel.loopStopped();
        // bytes the I/O thread queued with the end of stream, after the cycle's own read
        rig.cqe(WrIdTags.CHUNK | 1);
        rig.inbound(Protocol.DISCONNECT, (byte) 0, (byte) 0);
        e.duty();
        assertEnded(ConnectionState.CLOSED, "peer disconnected");
    }

    // ---------------------------------------------------------------- commands

    @Test
    void commandsRunOnTheEngineInBatches() {
        List<Integer> ran = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int k = i;
            e.command(x -> ran.add(k));
        }
        assertEquals(256, e.duty());
        assertEquals(256, ran.size());
        assertEquals(44, e.duty());
        assertEquals(299, ran.get(299));
        assertFalse(e.takeDataWork(), "commands are not data-path work");
    }

    @Test
    void aFailingCommandFailsTheConnection() throws Exception {
        e.command(x -> {
            throw new IllegalStateException("boom");
        });
        List<String> after = new ArrayList<>();
        e.command(x -> after.add("ran"));
        assertEquals(3, e.duty(), "two commands and the end");
        assertEnded(ConnectionState.FAILED, "command failed: java.lang.IllegalStateException: boom");
        assertEquals(List.of("ran"), after, "the batch goes on");
        assertEquals("command failed: java.lang.IllegalStateException: boom", disconnectReason());
    }

    @Test
    void aRefusedControlFrameKeepsTheEngineTicking() {
        int fill = rig.channel.outbound.free() - Protocol.HEADER_BYTES - ControlWriter.MIN_BODY_BYTES + 1;
        assertTrue(rig.channel.outbound.write(ByteBuffer.allocate(fill)));
        e.command(x -> assertEquals(null, rig.setup.writer.claim()));
        e.duty();
        assertEquals(7 + ConnectionEngine.BUSY_TICK_NANOS, e.timer(7), "retries on a tick");
        e.duty();
        assertEquals(Long.MAX_VALUE, e.timer(7), "no refusal since");
    }

    @Test
    void writtenFramesAreFlushedAndTheWriterReset() throws Exception {
        e.command(x -> {
            ByteBuffer b = rig.setup.writer.claim();
            b.put((byte) 4);
            rig.setup.writer.commit(Protocol.PATH_DRAINED, b);
        });
        e.duty();
        assertFalse(rig.setup.writer.takeWrote(), "the engine took the flag");
        List<LinkRig.Frame> f = rig.frames();
        assertEquals(1, f.size());
        assertEquals(Protocol.PATH_DRAINED, f.get(0).type());
    }

    // ---------------------------------------------------------------- scheduling

    @Test
    void armingTheCqIsOneShotUntilTheEvent() {
        assertTrue(e.armCq(), "armed now");
        assertEquals(1, rig.arms);
        assertFalse(e.armCq(), "already armed");
        assertEquals(1, rig.arms);
        e.completionEvent();
        assertTrue(e.queued(), "the event woke it");
        assertTrue(e.armCq(), "the event spent the arming");
        assertEquals(2, rig.arms);
    }

    @Test
    void aCqThatCannotBeArmedFailsTheConnection() {
        rig.armFails = new VerbsException(1, "scripted");
        assertTrue(e.armCq());
        assertFalse(e.ended(), "not before its next cycle");
        e.duty();
        assertEnded(ConnectionState.FAILED, "cannot arm the completion queue: scripted (errno 1)");
    }

    @Test
    void anArmedEngineWithNothingToDoGoesQuietAndAWakeQueuesItOnce() {
        assertFalse(e.quiet(), "not armed: a completion may be waiting");
        assertTrue(e.queued(), "stays running");
        e.armCq();
        assertTrue(e.quiet());
        assertFalse(e.queued());
        e.wake();
        assertTrue(e.queued());
        e.wakeAlways();
        assertTrue(e.queued());
        assertEquals(0, rig.agent.overflows(), "one wake-up queued");
    }

    @Test
    void everyKindOfPendingWorkKeepsTheEngineRunning() throws Exception {
        e.armCq();
        MemoryRegion r = rig.region(4096);
        rig.conn.postWrite(1, r, 0, 1, REMOTE, 0);
        assertFalse(e.quiet(), "a request");
        assertTrue(e.queued());
        e.duty();
        assertTrue(e.quiet());

        e.command(x -> { });
        assertFalse(e.quiet(), "a command");
        e.duty();
        assertTrue(e.quiet());

        rig.inbound(Protocol.PING);
        assertFalse(e.quiet(), "control bytes");
        e.duty();
        assertTrue(e.quiet());

        e.requestClose(60_000_000_000L);
        rig.messages = 1;
        assertFalse(e.quiet(), "a close not yet noticed");
        e.duty();
        assertFalse(e.ended(), "draining");
        assertTrue(e.quiet(), "the close was noticed: the timer runs it now");

        rig.channel.loopStopped();
        assertFalse(e.quiet(), "a channel that is not open");
    }

    @Test
    void startingHandsTheEngineToItsAgent() {
        e.command(x -> rig.calls.add("command"));
        e.start();
        assertTrue(e.queued());
        assertTrue(rig.agent.doWork() > 0);
        assertTrue(rig.calls.contains("command"), rig.calls.toString());
        assertEquals(rig.agent.thread(), e.thread());
        assertEquals(rig.agent, e.agent());
    }

    // ---------------------------------------------------------------- closing

    @Test
    void aDrainedCloseTellsThePeer() throws Exception {
        e.requestClose(60_000_000_000L);
        assertEquals(ConnectionState.CLOSING, rig.conn.state());
        assertEquals(1, e.duty(), "the end is work");
        assertEnded(ConnectionState.CLOSED, "disconnected");
        assertEquals("disconnected", disconnectReason());
        assertTrue(e.finalDescription().startsWith("messages=0 "), e.finalDescription());
    }

    @Test
    void aCloseWaitsForEveryPieceOfWork() throws Exception {
        MemoryRegion r = rig.region(64);
        rig.conn.postSend(4, r, 0, 8);
        e.requestClose(60_000_000_000L);
        rig.messages = 1;
        e.duty();
        assertFalse(e.ended(), "a message in progress and a send pending");
        rig.messages = 0;
        e.duty();
        assertFalse(e.ended(), "a send pending");
        rig.reserve.add(new Object[] {Reassembly.TOO_LONG});
        rig.noticesPending = true;
        e.duty();
        assertFalse(e.ended(), "a notice pending");
        rig.noticesPending = false;
        e.duty();
        assertEnded(ConnectionState.CLOSED, "disconnected");
        assertEquals(MpStatus.REMOTE_OPERATION_ERROR, rig.onlyCompletion().status(), "the send was not flushed");
    }

    @Test
    void aCloseEndsAtItsDeadlineWhateverIsLeft() throws Exception {
        long before = System.nanoTime();
        e.requestClose(0);
        e.requestClose(60_000_000_000L); // the first deadline stays
        rig.messages = 1;
        e.duty();
        assertEnded(ConnectionState.CLOSED, "disconnected");
        assertTrue(rig.calls.contains("failAll [FLUSHED, disconnected, true]"), rig.calls.toString());
        assertTrue(before <= Long.MAX_VALUE);
    }

    @Test
    void aClosingEnginesTimerIsItsDrainDeadline() {
        long before = System.nanoTime();
        e.requestClose(5_000_000_000L);
        long after = System.nanoTime();
        long t = e.timer(before);
        assertTrue(t - (before + 5_000_000_000L) >= 0 && t - (after + 5_000_000_000L) <= 0, "deadline " + t);
        rig.messages = 1;
        assertEquals(before + ConnectionEngine.BUSY_TICK_NANOS, e.timer(before), "a tick comes first");
        assertEquals(t, e.timer(t), "the deadline comes first");
    }

    @Test
    void everyPathFailingForTooLongFailsTheConnection() throws Exception {
        rig.counters.add(DecompositionCounters.Counter.FAILOVER_TIMEOUT);
        e.duty();
        assertEnded(ConnectionState.FAILED,
                "no usable path for " + rig.options.failoverTimeout().toMillis() + " ms");
        assertEquals(rig.conn.endReason(), disconnectReason());
    }

    @Test
    void anEngineFailureEndsTheConnectionAndNeverLeavesTheCycle() throws Exception {
        rig.scheduleFails = new IllegalStateException("scripted");
        assertEquals(1, e.duty());
        assertEnded(ConnectionState.FAILED, "engine failure: java.lang.IllegalStateException: scripted");
        assertEquals(rig.conn.endReason(), disconnectReason());
    }

    @Test
    void abortingFlushesEveryRequestWithoutTellingThePeer() throws Exception {
        MemoryRegion r = rig.region(4096, Access.LOCAL_WRITE);
        rig.conn.postWrite(1, r, 0, 10, REMOTE, 0);
        rig.conn.postRecv(2, r, 0, 10);
        e.abort("group stopped");
        assertEnded(ConnectionState.FAILED, "group stopped");
        List<MpCompletion> c = rig.completions();
        assertEquals(2, c.size(), c.toString());
        assertEquals(MpOpcode.WRITE, c.get(0).opcode());
        assertEquals(MpStatus.FLUSHED, c.get(0).status());
        assertEquals("group stopped", c.get(0).detail());
        assertEquals(MpOpcode.RECV, c.get(1).opcode());
        assertEquals(List.of(), rig.frames());
        assertTrue(rig.mrsClosed >= 2, "regions and scratch released: " + rig.mrsClosed);
        e.abort("again");
        assertEquals(List.of(rig.conn), rig.closed, "once");
        assertEquals("group stopped", rig.conn.endReason());
    }

    @Test
    void aFinishedEngineDoesNotWait() {
        e.abort("x");
        assertTrue(e.finished(), "released");
        e.join(60_000);
        assertTrue(e.finished());
    }

    // ---------------------------------------------------------------- more of the cycle

    @Test
    void everyStageOfTheCycleCountsAsWork() throws Exception {
        MemoryRegion r = rig.region(4096);
        rig.conn.postSend(1, r, 0, 8);
        rig.reserve.add(new Object[] {Reassembly.SMALL, 1L, 0, 0L, 0, false});
        rig.notices.add(new PlacementNotice().set(2, 0x2000, 0x31, 24, 1, 11));
        rig.scheduleWork = 30;
        rig.deliverWork = 500;
        int ticks = rig.ticks;
        assertEquals(1 + 1 + 1 + 30 + 500, e.duty());
        assertEquals(ticks + 1, rig.ticks, "the decomposition's clock advanced");
        rig.scheduleWork = 0;
        rig.deliverWork = 0;
        assertEquals(0, e.duty());
        assertEquals(ticks + 2, rig.ticks);
    }

    @Test
    void aPathRemovalsWorkCounts() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(64);
        new dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.PathRef(0x501).encode(b);
        b.flip();
        byte[] body = new byte[b.remaining()];
        b.get(body);
        rig.inbound(Protocol.REMOVE_PATH, body);
        assertEquals(2, e.duty(), "the frame and the PATH_DRAINED it answers");
        List<LinkRig.Frame> f = rig.frames();
        assertEquals(1, f.size());
        assertEquals(Protocol.PATH_DRAINED, f.get(0).type());
    }

    @Test
    void receivesAreDeliveredToTheApplication() {
        rig.deliverReceive = new long[] {77, 1234};
        e.duty();
        MpCompletion c = rig.onlyCompletion();
        assertEquals(77, c.wrId());
        assertEquals(MpOpcode.RECV, c.opcode());
        assertEquals(MpStatus.SUCCESS, c.status());
        assertEquals(1234, c.byteLength());
        assertEquals(2, c.paths());
        assertEquals("recv", c.detail());
    }

    @Test
    void probeCompletionsGoToTheMonitorLink() {
        rig.cqe(WrIdTags.PROBE | 4);
        rig.cqe(5);
        rig.cqe(6);
        assertEquals(3, e.duty());
        assertEquals(1, e.monitor().staleProbeCompletions(), "a probe the link no longer knows");
        assertEquals(2, e.unknownCompletions());
    }

    @Test
    void aFrameOfTypeZeroIsUnexpected() {
        rig.inbound(0);
        e.duty();
        assertEndedWith(ConnectionState.FAILED, "peer broke the control protocol: ");
    }

    @Test
    void framesQueuedWithTheEndOfStreamDuringTheCycleAreRead() {
        rig.onPoll = () -> {
            // the I/O thread, after this cycle read the ring: the peer's last frame, then the end
            rig.inbound(Protocol.DISCONNECT, (byte) 0, (byte) 0);
            rig.channel.loopStopped();
        };
        e.duty();
        assertEnded(ConnectionState.CLOSED, "peer disconnected");
    }

    @Test
    void theEndOfAConnectionIsWorkOfItsCycle() throws Exception {
        rig.inbound(Protocol.DISCONNECT, (byte) 0, (byte) 0);
        assertEquals(2, e.duty(), "the frame and the end");
        rig.close();
        rig = new EngineRig();
        e = rig.engine;
        rig.channel.loopStopped();
        assertEquals(1, e.duty(), "the end");
        assertEndedWith(ConnectionState.FAILED, "peer gone: ");
    }

    @Test
    void aFailoverTimeoutIsTheCyclesWork() {
        rig.counters.add(DecompositionCounters.Counter.FAILOVER_TIMEOUT);
        assertEquals(1, e.duty());
        assertTrue(e.ended());
    }

    @Test
    void nothingCanBePostedWhileTheConnectionIsTornDown() throws Exception {
        MemoryRegion r = rig.region(4096);
        List<String> outcome = new ArrayList<>();
        rig.onFlush = () -> {
            try {
                rig.conn.postWrite(5, r, 0, 1, REMOTE, 0);
                outcome.add("posted");
            } catch (dev.virtuoso.api.VirtuosoException x) {
                outcome.add("refused");
            }
        };
        e.abort("stop");
        assertEquals(List.of("refused"), outcome);
    }

    @Test
    void aFailingReleaseStillReleasesTheRest() {
        rig.closeFails = true;
        e.abort("stop");
        assertEnded(ConnectionState.FAILED, "stop");
    }

    @Test
    void theFinalStatsAreThePathsAtTheEnd() {
        e.abort("stop");
        assertEquals(1, e.finalStats().size());
        assertEquals(3, e.finalStats().get(0).retransmissions());
        assertTrue(e.finalDescription().contains("paths=["), e.finalDescription());
    }

    @Test
    void aConnectionThatCannotBeAssembledClosesItsControlChannel() throws Exception {
        java.nio.channels.SocketChannel s = java.nio.channels.SocketChannel.open();
        IllegalStateException x = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> rig.another((c, w) -> {
                    throw new IllegalStateException("no decomposition");
                }, s));
        assertEquals("no decomposition", x.getMessage());
        assertFalse(s.isOpen());
    }

    // ---------------------------------------------------------------- waking

    private void goQuiet() {
        e.armCq();
        assertTrue(e.quiet());
        assertFalse(e.queued());
    }

    @Test
    void everyWayOfWakingAQuietEngineQueuesIt() throws Exception {
        goQuiet();
        e.command(x -> { });
        assertTrue(e.queued(), "a command");
        e.duty();
        goQuiet();
        e.wakeAlways();
        assertTrue(e.queued(), "wakeAlways");
        goQuiet();
        e.completionEvent();
        assertTrue(e.queued(), "a completion event");
        e.duty();
        goQuiet();
        MemoryRegion r = rig.region(64);
        rig.conn.postWrite(1, r, 0, 1, REMOTE, 0);
        assertTrue(e.queued(), "a request");
        e.duty();
        goQuiet();
        e.requestClose(60_000_000_000L);
        assertTrue(e.queued(), "a close");
    }

    @Test
    void aWokenEngineIsRunByItsAgent() {
        goQuiet();
        List<String> ran = new ArrayList<>();
        e.command(x -> ran.add("command"));
        assertTrue(rig.agent.doWork() > 0);
        assertEquals(List.of("command"), ran, "the agent took it from its wake-up queue");
    }

    @Test
    void aStartedEngineIsRunByItsAgentAndHearsItsRegistry() throws Exception {
        rig.agent.onStart(); // this thread is the agent's
        e.start();
        assertEquals(Thread.currentThread(), e.thread());
        int ticks = rig.ticks;
        assertTrue(rig.agent.doWork() > 0);
        assertEquals(ticks + 1, rig.ticks, "the agent ran a cycle");
        assertTrue(rig.calls.stream().anyMatch(c -> c.startsWith("loadBalancer")), "sessions started: " + rig.calls);
        goQuiet();
        dev.virtuoso.spi.policy.LoadBalancerPolicy lb = (dev.virtuoso.spi.policy.LoadBalancerPolicy) java.lang.reflect.Proxy
                .newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {dev.virtuoso.spi.policy.LoadBalancerPolicy.class}, (p, m, a) -> null);
        e.registry().add("other", lb);
        assertTrue(e.queued(), "the registry's news is a command");
        assertEquals(1, e.duty());
        goQuiet();
        e.registry().remove("other", lb);
        assertTrue(e.queued());
        assertEquals(1, e.duty());
        e.join(60_000); // the agent's own thread does not wait for itself
        assertFalse(e.finished());
        e.abort("stop");
        goQuiet();
        e.registry().add("third", lb);
        assertTrue(e.quiet(), "an ended connection no longer listens");
    }

    @Test
    void anInterruptedJoinKeepsTheInterrupt() {
        Thread.currentThread().interrupt();
        e.join(60_000);
        assertTrue(Thread.interrupted(), "still interrupted");
        assertFalse(e.finished());
    }

    // ---------------------------------------------------------------- the control channel's I/O requests

    /** Whether the channel asked its I/O thread for service (the stopped loop never clears it). */
    private static java.util.concurrent.atomic.AtomicBoolean ioRequested(ControlChannel c) throws Exception {
        java.lang.reflect.Field f = ControlChannel.class.getDeclaredField("requested");
        f.setAccessible(true);
        return (java.util.concurrent.atomic.AtomicBoolean) f.get(c);
    }

    @Test
    void onlyACycleThatWroteFramesFlushesTheChannel() throws Exception {
        ioRequested(rig.channel).set(false);
        e.duty();
        assertFalse(ioRequested(rig.channel).get(), "nothing written, nothing flushed");
        e.command(x -> {
            ByteBuffer b = rig.setup.writer.claim();
            b.put((byte) 1);
            rig.setup.writer.commit(Protocol.PATH_DRAINED, b);
        });
        e.duty();
        assertTrue(ioRequested(rig.channel).get(), "flushed");
    }

    @Test
    void startingHandsTheChannelToItsIoThread() throws Exception {
        ioRequested(rig.channel).set(false);
        e.start();
        assertTrue(ioRequested(rig.channel).get());
    }

    // ---------------------------------------------------------------- policies coming and going

    @Test
    void theChosenLoadBalancerIsInstalledWhenItAppearsAndLeftWhenItGoes() throws Exception {
        rig.close();
        rig = new EngineRig(dev.virtuoso.api.ConnectOptions.builder().maxOutstanding(16).loadBalancer("mine").build());
        e = rig.engine;
        e.start();
        assertEquals(List.of("loadBalancer [null]"), rig.calls.stream().filter(c -> c.startsWith("loadBalancer"))
                .toList(), "not registered yet: the built-in one");
        rig.calls.clear();
        Object session = java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {dev.virtuoso.spi.policy.LoadBalancerSession.class}, (p, m, a) -> switch (m.getName()) {
                    case "toString" -> "session";
                    default -> null;
                });
        dev.virtuoso.spi.policy.LoadBalancerPolicy lb = (dev.virtuoso.spi.policy.LoadBalancerPolicy) java.lang.reflect.Proxy
                .newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {dev.virtuoso.spi.policy.LoadBalancerPolicy.class},
                        (p, m, a) -> "newSession".equals(m.getName()) ? session : null);
        e.registry().add("mine", lb);
        e.duty();
        assertEquals(List.of("loadBalancer [session]"), rig.calls.stream().filter(c -> c.startsWith("loadBalancer"))
                .toList(), "installed when it appeared");
        rig.calls.clear();
        e.registry().remove("mine", lb);
        e.duty();
        assertEquals(List.of("loadBalancer [null]"), rig.calls.stream().filter(c -> c.startsWith("loadBalancer"))
                .toList(), "back to the built-in one");
    }

    // ---------------------------------------------------------------- with a path monitor

    @Test
    void aMonitoredConnectionHearsItsPathsAndWakesForHousekeeping() throws Exception {
        rig.close();
        ScriptedMonitor monitor = new ScriptedMonitor();
        rig = new EngineRig(dev.virtuoso.api.ConnectOptions.builder().maxOutstanding(16).build(), monitor);
        e = rig.engine;
        assertTrue(monitor.events.contains("added 0"), "the monitor heard the established path: " + monitor.events);
        assertTrue(e.monitor().monitored());
        assertEquals(100 + ConnectionEngine.HOUSEKEEPING_NANOS, e.timer(100), "quiet, but the monitor's clock runs");
        rig.messages = 1;
        assertEquals(100 + ConnectionEngine.BUSY_TICK_NANOS, e.timer(100), "work in flight comes first");
    }
}
