package dev.virtuoso.decomposer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * A small MP_SEND written straight into the peer's receive buffer ({@link MessageSpec#sendSmallDirect})
 * is one WRITE with immediate; a failed attempt is re-sent as a SEND with the same immediate, and
 * only after the failed path is fenced, so no WRITE of it can land after the peer delivered it.
 */
class DirectSmallSendTest {
    private static final long LOCAL = 0x4000;
    private static final long REMOTE = 0x9000;
    private static final int IMM = 42;

    private final ThreePathRig rig = new ThreePathRig();
    private final RecordingTransport transport = rig.transport;
    private final List<MpStatus> done = rig.done;
    private final MessageSpec spec = rig.spec;
    private final PathTable paths = rig.paths;
    private final Decomposition d = rig.d;

    private void complete(RecordingTransport.Chunk c, IbvWcStatus status) {
        rig.complete(c, status);
    }

    /** Submits a 100-byte direct small SEND and returns its one chunk, posted. */
    private RecordingTransport.Chunk postDirect(long length) {
        assertTrue(d.submit(spec.sendSmallDirect(7, LOCAL, 1, length, REMOTE, 5, IMM)));
        d.schedule();
        List<RecordingTransport.Chunk> posted = transport.take();
        assertEquals(1, posted.size(), "never split");
        return posted.get(0);
    }

    private static void assertResend(RecordingTransport.Chunk c, int failedPath, long length) {
        assertEquals(IbvWrOpcode.SEND_WITH_IMM, c.opcode(), "re-sent into a receive slot");
        assertEquals(IMM, c.imm());
        assertEquals(LOCAL, c.localAddr());
        assertEquals(length, c.length());
        assertEquals(0, c.remoteAddr());
        assertNotEquals(failedPath, c.path());
    }

    @Test
    void aDirectSmallSendIsOneWriteWithImmediateIntoTheReceiveBuffer() {
        RecordingTransport.Chunk c = postDirect(100);
        assertEquals(IbvWrOpcode.RDMA_WRITE_WITH_IMM, c.opcode());
        assertEquals(REMOTE, c.remoteAddr());
        assertEquals(IMM, c.imm());
        assertEquals(100, c.length());
        complete(c, IbvWcStatus.SUCCESS);
        assertEquals(List.of(MpStatus.SUCCESS), done);
    }

    @Test
    void aZeroLengthDirectSendIsStillSent() {
        RecordingTransport.Chunk c = postDirect(0);
        assertEquals(IbvWrOpcode.RDMA_WRITE_WITH_IMM, c.opcode(), "its immediate completes the peer's receive");
        assertTrue(done.isEmpty());
        complete(c, IbvWcStatus.SUCCESS);
        assertEquals(List.of(MpStatus.SUCCESS), done);
    }

    @Test
    void aFailedAttemptIsResentAsASendOnlyOnceItsPathIsFenced() {
        RecordingTransport.Chunk first = postDirect(100);
        complete(first, IbvWcStatus.RETRY_EXC_ERR);
        d.schedule();
        assertTrue(transport.posted.isEmpty(), "the failed WRITE may still land: nothing is re-sent yet");
        assertEquals(0, d.pathFenced((first.path() + 1) % 3));
        d.schedule();
        assertTrue(transport.posted.isEmpty(), "another path's fence releases nothing");
        d.pathFenced(first.path());
        d.schedule();
        List<RecordingTransport.Chunk> resent = transport.take();
        assertEquals(1, resent.size());
        assertResend(resent.get(0), first.path(), 100);
        assertTrue(done.isEmpty());
        complete(resent.get(0), IbvWcStatus.SUCCESS);
        assertEquals(List.of(MpStatus.SUCCESS), done, "completed once");
        assertEquals(0, d.messagesInProgress());
    }

    @Test
    void anAbandonedZeroLengthAttemptIsResentAfterTheFenceAndNotCompletedBefore() {
        RecordingTransport.Chunk first = postDirect(0);
        assertEquals(1, d.abandonPath(first.path()));
        paths.state(first.path(), dev.virtuoso.api.PathState.RECOVERING);
        d.schedule();
        assertTrue(transport.posted.isEmpty());
        assertTrue(done.isEmpty(), "nothing of it was confirmed placed");
        d.pathFenced(first.path());
        assertTrue(done.isEmpty(), "the fence releases the re-send, not the completion");
        d.schedule();
        List<RecordingTransport.Chunk> resent = transport.take();
        assertEquals(1, resent.size());
        assertResend(resent.get(0), first.path(), 0);
        complete(resent.get(0), IbvWcStatus.SUCCESS);
        assertEquals(List.of(MpStatus.SUCCESS), done);
    }

    @Test
    void aResentSendThatFailsIsRepostedAtOnceAndWaitsForBothFences() {
        RecordingTransport.Chunk first = postDirect(100);
        complete(first, IbvWcStatus.RETRY_EXC_ERR);
        d.pathFenced(first.path());
        d.schedule();
        RecordingTransport.Chunk second = transport.take().get(0);
        complete(second, IbvWcStatus.RETRY_EXC_ERR);
        d.schedule();
        List<RecordingTransport.Chunk> third = transport.take();
        assertEquals(1, third.size(), "a SEND lands in a slot: re-posted without waiting, as small SENDs are");
        assertEquals(IbvWrOpcode.SEND_WITH_IMM, third.get(0).opcode());
        complete(third.get(0), IbvWcStatus.SUCCESS);
        assertTrue(done.isEmpty(), "the second path is not fenced yet");
        d.pathFenced(second.path());
        assertEquals(List.of(MpStatus.SUCCESS), done);
    }

    @Test
    void aMessageFailedWhileWaitingForTheFenceIsNeverResent() {
        RecordingTransport.Chunk first = postDirect(100);
        complete(first, IbvWcStatus.RETRY_EXC_ERR);
        assertEquals(1, d.failAll(MpStatus.PATH_FAILURE, "test", false));
        assertEquals(List.of(MpStatus.PATH_FAILURE), done);
        d.pathFenced(first.path());
        d.schedule();
        assertTrue(transport.posted.isEmpty());
        assertEquals(1, done.size());
        assertEquals(0, d.messagesInProgress());
    }
}
