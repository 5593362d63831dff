package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * {@link ChunkPoster} on the test thread over {@link LinkRig}'s paths (send-queue depth 64): the
 * work request it fills in, and which refused posts fail the path (not a full send queue, not a
 * path that is not up).
 */
class ChunkPosterTest {
    private LinkRig rig;
    private ChunkPoster chunks;

    @BeforeEach
    void setUp() throws Exception {
        rig = new LinkRig();
        rig.link(false, true, 2);
        chunks = rig.paths.chunks();
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    @Test
    void postsTheChunkThroughThePathsOwnWorkRequest() {
        assertTrue(chunks.post(1, 77, IbvWrOpcode.RDMA_WRITE_WITH_IMM, 0x2000, 100, 5, 0x9000, 9, 1234));
        IbvSendWr w = rig.posted.get(rig.posted.size() - 1);
        assertEquals(77, w.wrId());
        assertEquals(IbvWrOpcode.RDMA_WRITE_WITH_IMM, w.opcode());
        assertEquals(0x9000, w.remoteAddr());
        assertEquals(9, w.rkey());
        assertEquals(1, w.numSge());
        assertEquals(0x2000, w.sge(0).addr());
        assertEquals(100, w.sge(0).length());
        assertEquals(5, w.sge(0).lkey());
        IbvSendWr own = rig.paths.slot(1).wr;
        assertEquals(1234, own.immData());
        assertEquals(IbvSendFlags.SIGNALED, own.sendFlags(), "every chunk is signaled");
        assertEquals(64, chunks.sendQueueDepth(1));
    }

    @Test
    void anEmptyChunkCarriesNoScatterGatherEntry() {
        assertTrue(chunks.post(0, 78, IbvWrOpcode.RDMA_WRITE_WITH_IMM, 0x2000, 0, 5, 0x9000, 9, 1));
        assertEquals(0, rig.posted.get(rig.posted.size() - 1).numSge());
        assertEquals(0, rig.paths.slot(0).wr.numSge());
    }

    @Test
    void aFullSendQueueRefusesThePostWithoutFailingThePath() {
        rig.postErrno = VerbsException.ENOMEM;
        assertFalse(chunks.post(1, 79, IbvWrOpcode.RDMA_WRITE, 0x2000, 10, 5, 0x9000, 9, 0));
        assertEquals(PathState.UP, rig.table.state(1));
        assertEquals(0, rig.paths.pathFailures());
    }

    @Test
    void anyOtherRefusalFailsAnUpPathOnce() {
        rig.postErrno = 5;
        assertFalse(chunks.post(1, 80, IbvWrOpcode.RDMA_WRITE, 0x2000, 10, 5, 0x9000, 9, 0));
        assertNotEquals(PathState.UP, rig.table.state(1));
        assertEquals(1, rig.paths.pathFailures());
        assertFalse(chunks.post(1, 81, IbvWrOpcode.RDMA_WRITE, 0x2000, 10, 5, 0x9000, 9, 0));
        assertEquals(1, rig.paths.pathFailures(), "not up any more: not failed again");
        assertEquals(PathState.UP, rig.table.state(0), "the other path is untouched");
    }

    @Test
    void aFailedCompletionIsHandedToThePathManager() {
        chunks.pathFailed(0, IbvWcStatus.RETRY_EXC_ERR);
        assertNotEquals(PathState.UP, rig.table.state(0));
        assertEquals(1, rig.paths.pathFailures());
    }
}
