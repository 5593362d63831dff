package dev.virtuoso.decomposer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * A message with an attempt that failed (or was abandoned) on a path is reported complete only once
 * the peer confirmed that path's old attempts dead ({@link Decomposition#pathFenced}): late packets
 * of the first attempt must not land after the application saw the completion.
 */
class FencedCompletionTest {
    private static final long MIB = 1 << 20;

    private final ThreePathRig rig = new ThreePathRig();
    private final RecordingTransport transport = rig.transport;
    private final List<MpStatus> done = rig.done;
    private final MessageSpec spec = rig.spec;
    private final PathTable paths = rig.paths;
    private final Decomposition d = rig.d;

    private void complete(RecordingTransport.Chunk c, IbvWcStatus status) {
        rig.complete(c, status);
    }

    /** Places and completes successfully everything posted until nothing is left. */
    private void drain() {
        d.schedule();
        while (!transport.posted.isEmpty()) {
            for (RecordingTransport.Chunk c : transport.take()) {
                complete(c, IbvWcStatus.SUCCESS);
            }
            d.schedule();
        }
    }

    @Test
    void aRetriedChunkCompletesItsMessageOnlyAfterTheFailedPathIsFenced() {
        d.submit(spec.write(1, 0, 1, 6 * MIB, 0, 2));
        d.schedule();
        for (RecordingTransport.Chunk c : transport.take()) {
            complete(c, c.path() == 0 ? IbvWcStatus.RETRY_EXC_ERR : IbvWcStatus.SUCCESS);
        }
        drain();
        assertTrue(done.isEmpty(), "every byte is placed, but path 0's first attempt may still land");
        assertEquals(1, d.messagesAwaitingFence());
        assertEquals(1, d.counters().fenceWaits());
        assertEquals(1, d.messagesInProgress());
        assertEquals(0, d.pathFenced(1), "another path's fence releases nothing");
        assertTrue(done.isEmpty());
        assertEquals(1, d.pathFenced(0));
        assertEquals(List.of(MpStatus.SUCCESS), done);
        assertEquals(0, d.messagesInProgress());
        assertEquals(0, d.messagesAwaitingFence());
    }

    @Test
    void anAbandonedChunkCompletesItsMessageOnlyAfterThePathIsFenced() {
        d.submit(spec.write(1, 0, 1, 3 * MIB, 0, 2));
        d.schedule();
        List<RecordingTransport.Chunk> first = transport.take();
        assertEquals(1, d.abandonPath(1));
        for (RecordingTransport.Chunk c : first) {
            if (c.path() != 1) {
                complete(c, IbvWcStatus.SUCCESS);
            }
        }
        drain();
        assertTrue(done.isEmpty());
        d.pathFenced(1);
        assertEquals(List.of(MpStatus.SUCCESS), done);
    }

    @Test
    void aMessageWaitsForEveryPathItFailedOn() {
        d.submit(spec.write(1, 0, 1, 6 * MIB, 0, 2));
        d.schedule();
        for (RecordingTransport.Chunk c : transport.take()) {
            complete(c, c.path() == 2 ? IbvWcStatus.SUCCESS : IbvWcStatus.RETRY_EXC_ERR);
        }
        drain();
        d.pathFenced(0);
        assertTrue(done.isEmpty(), "path 1 is not fenced yet");
        d.pathFenced(1);
        assertEquals(List.of(MpStatus.SUCCESS), done);
    }

    @Test
    void messagesWithoutAFailedAttemptAreNotHeld() {
        d.submit(spec.write(1, 0, 1, 6 * MIB, 0, 2));
        drain();
        assertEquals(List.of(MpStatus.SUCCESS), done);
        assertEquals(0, d.counters().fenceWaits());
    }

    @Test
    void aFenceBeforeTheRetryCompletesDoesNotHoldTheMessageAfterwards() {
        d.submit(spec.write(1, 0, 1, 3 * MIB, 0, 2));
        d.schedule();
        for (RecordingTransport.Chunk c : transport.take()) {
            complete(c, c.path() == 0 ? IbvWcStatus.RETRY_EXC_ERR : IbvWcStatus.SUCCESS);
        }
        assertEquals(0, d.pathFenced(0), "nothing was held yet");
        drain();
        assertEquals(List.of(MpStatus.SUCCESS), done);
    }

    @Test
    void aSendWhoseReceiverDropsDuplicatesCompletesWithoutTheFence() {
        d.submit(spec.sendSmall(1, 0, 1, 512, 7).dropsDuplicates());
        d.schedule();
        List<RecordingTransport.Chunk> first = transport.take();
        assertEquals(1, first.size());
        complete(first.get(0), IbvWcStatus.RETRY_EXC_ERR);
        drain(); // re-sent at once on another path
        assertEquals(List.of(MpStatus.SUCCESS), done, "a late copy of the failed attempt is dropped by the receiver");
        assertEquals(0, d.messagesAwaitingFence());
        assertEquals(0, d.counters().fenceWaits());
    }

    @Test
    void aSendWithoutTheDeclarationStillWaitsForTheFence() {
        d.submit(spec.sendSmall(1, 0, 1, 512, 7));
        d.schedule();
        complete(transport.take().get(0), IbvWcStatus.RETRY_EXC_ERR);
        drain();
        assertTrue(done.isEmpty());
        assertEquals(1, d.messagesAwaitingFence());
    }

    @Test
    void onlySendsMayDeclareThatTheirReceiverDropsDuplicates() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> spec.write(1, 0, 1, 512, 0, 2).dropsDuplicates());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> spec.sendSmallDirect(1, 0, 1, 512, 0, 2, 7).dropsDuplicates());
        assertTrue(spec.sendSmall(1, 0, 1, 512, 7).dropsDuplicates().dropsDuplicatesDeclared());
        assertTrue(!spec.sendSmall(1, 0, 1, 512, 7).dropsDuplicatesDeclared(), "set() resets it");
    }
}
