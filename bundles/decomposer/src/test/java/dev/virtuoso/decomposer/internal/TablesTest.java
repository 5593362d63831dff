package dev.virtuoso.decomposer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.util.WrId;

/** The preallocated tables and small helpers of the decomposition. */
class TablesTest {
    /** The chunk wr_id tag, as the engine assigns it. */
    private static final long TAG = 1L << 60;


    @Test
    void slotStackHandsOutLowSlotsFirstAndReusesReleasedOnes() {
        SlotStack s = new SlotStack(3);
        assertEquals(3, s.capacity());
        assertEquals(0, s.allocate());
        assertEquals(1, s.allocate());
        assertEquals(2, s.inUse());
        assertTrue(s.inUse(1));
        s.release(0);
        assertFalse(s.inUse(0));
        assertEquals(1, s.inUse());
        assertEquals(0, s.allocate());
        assertEquals(2, s.allocate());
        assertEquals(-1, s.allocate(), "all in use");
        assertEquals(3, s.inUse());
    }

    @Test
    void chunkWrIdCarriesTagGenerationAndSlot() {
        ChunkTable t = new ChunkTable(4, TAG);
        assertEquals(4, t.capacity());
        int a = t.allocate();
        int b = t.allocate();
        assertEquals(2, t.inUse());
        long wrA = t.wrId(a);
        assertTrue(WrId.tag(wrA) == TAG);
        assertEquals(TAG | a, wrA);
        assertEquals(a, t.slotOf(wrA));
        assertEquals(b, t.slotOf(t.wrId(b)));

        t.release(a);
        assertFalse(t.inUse(a));
        assertEquals(1, t.inUse());
        assertEquals(-1, t.slotOf(wrA), "released");
        assertEquals(a, t.allocate());
        assertEquals(TAG | (1L << 32) | a, t.wrId(a), "generation 1 after one release");
        assertEquals(-1, t.slotOf(wrA), "stale generation");
        assertEquals(a, t.slotOf(t.wrId(a)));
    }

    @Test
    void slotOfRejectsSlotsBeyondTheTable() {
        ChunkTable t = new ChunkTable(2, TAG);
        t.allocate();
        t.allocate();
        assertEquals(-1, t.slotOf(TAG | 2));
        assertEquals(-1, t.slotOf(TAG | 0xFFFF_FFFFL));
        assertEquals(1, t.slotOf(TAG | 1));
    }

    @Test
    void aLargeChunkTableStartsSmallAndGrowsToItsLimitKeepingLiveChunks() {
        ChunkTable t = new ChunkTable(200, TAG);
        assertEquals(ChunkTable.INITIAL_SLOTS, t.capacity(), "allocated as needed");
        assertEquals(200, t.limit());
        for (int i = 0; i < 200; i++) {
            int c = t.allocate();
            assertEquals(i, c, "lowest free slot first");
            t.message[c] = 1000 + i;
            t.length[c] = i;
        }
        assertEquals(200, t.capacity());
        assertEquals(-1, t.allocate(), "the limit holds");
        for (int i = 0; i < 200; i++) {
            assertEquals(1000 + i, t.message[i], "kept across growth");
            assertEquals(i, t.slotOf(t.wrId(i)));
        }
        long old = t.wrId(3);
        t.release(3);
        assertEquals(-1, t.slotOf(old));
        assertEquals(3, t.allocate());
    }

    @Test
    void aGrowingSlotStackHandsOutLowSlotsFirst() {
        SlotStack s = new SlotStack(2, 5);
        assertEquals(0, s.allocate());
        assertEquals(1, s.allocate());
        s.release(0);
        assertEquals(0, s.allocate(), "a free slot before growing");
        assertEquals(2, s.allocate());
        assertEquals(4, s.capacity());
        assertEquals(3, s.allocate());
        assertEquals(4, s.allocate());
        assertEquals(5, s.capacity(), "not beyond the limit");
        assertEquals(-1, s.allocate());
        assertEquals(5, s.inUse());
    }

    @Test
    void messageTableStartsSmallAndGrowsToItsLimitKeepingEveryMessage() {
        MessageTable t = new MessageTable(1000);
        assertEquals(MessageTable.INITIAL_SLOTS, t.capacity(), "a connection's worst case is not allocated up front");
        assertEquals(1000, t.limit());
        MessageSpec spec = new MessageSpec();
        for (int k = 0; k < 1000; k++) {
            int m = t.add(spec.write(k, 0x1000 + k, 3, 100 + k, 0x2000, 4).tag(k));
            assertEquals(k, m, "slots in order");
            t.placed[m] = k;
            t.detail[m] = "m" + k;
        }
        assertEquals(1000, t.capacity(), "doubled up to the limit, not beyond");
        for (int k = 0; k < 1000; k++) {
            assertEquals(k, t.wrId[k]);
            assertEquals(100 + k, t.length[k]);
            assertEquals(k, t.placed[k], "state written before a growth is kept");
            assertEquals("m" + k, t.detail[k]);
            assertEquals(k, t.messageId[k]);
        }
        assertEquals(-1, t.add(spec), "full at the limit");
    }

    @Test
    void messageTableCopiesTheSpecAndNumbersMessages() {
        MessageTable t = new MessageTable(2);
        MessageSpec spec = new MessageSpec().write(11, 0x1000, 3, 500, 0x2000, 4).tag(99);
        int m = t.add(spec);
        assertEquals(11, t.wrId[m]);
        assertEquals(99, t.tag[m]);
        assertEquals(500, t.length[m]);
        assertEquals(MpStatus.SUCCESS, t.status[m]);
        assertFalse(t.failed(m));
        int n = t.add(spec.write(12, 0, 3, 1, 0, 4));
        assertEquals(t.messageId[m] + 1, t.messageId[n], "identifiers ascend");
        assertEquals(-1, t.add(spec), "full");
        assertEquals(2, t.inUse());

        t.detail[m] = "x";
        t.status[m] = MpStatus.REMOTE_ACCESS_ERROR;
        assertTrue(t.failed(m));
        t.release(m);
        assertNull(t.detail[m]);
        assertFalse(t.inUse(m));
        assertEquals(1, t.inUse());
        int again = t.add(spec);
        assertEquals(m, again);
        assertFalse(t.failed(again), "a reused slot starts clean");
        assertEquals(t.messageId[n] + 1, t.messageId[again]);
    }

    @Test
    void chunkStatusSeparatesPathFailuresFromRequestFailures() {
        assertEquals(ChunkOutcome.SUCCESS, ChunkStatus.outcome(IbvWcStatus.SUCCESS));
        assertEquals(ChunkOutcome.RETRY_EXCEEDED, ChunkStatus.outcome(IbvWcStatus.RETRY_EXC_ERR));
        assertEquals(ChunkOutcome.RNR_RETRY_EXCEEDED, ChunkStatus.outcome(IbvWcStatus.RNR_RETRY_EXC_ERR));
        assertEquals(ChunkOutcome.FLUSHED, ChunkStatus.outcome(IbvWcStatus.WR_FLUSH_ERR));
        assertEquals(ChunkOutcome.ERROR, ChunkStatus.outcome(IbvWcStatus.REM_ACCESS_ERR));
        assertNull(ChunkStatus.requestFailure(IbvWcStatus.RETRY_EXC_ERR));
        assertNull(ChunkStatus.requestFailure(IbvWcStatus.LOC_QP_OP_ERR), "the QP's failure, re-posted elsewhere");
        assertEquals(MpStatus.LOCAL_LENGTH_ERROR, ChunkStatus.requestFailure(IbvWcStatus.LOC_LEN_ERR));
        assertEquals(MpStatus.LOCAL_PROTECTION_ERROR, ChunkStatus.requestFailure(IbvWcStatus.LOC_PROT_ERR));
        assertEquals(MpStatus.REMOTE_ACCESS_ERROR, ChunkStatus.requestFailure(IbvWcStatus.REM_ACCESS_ERR));
        assertEquals(MpStatus.REMOTE_OPERATION_ERROR, ChunkStatus.requestFailure(IbvWcStatus.REM_OP_ERR));
    }

    @Test
    void builtinRoundRobinSkipsClosedPathsAndWraps() {
        boolean[] open = {true, false, true};
        BuiltinRoundRobin rr = new BuiltinRoundRobin(new PathGate() {
            @Override
            public int pathCount() {
                return open.length;
            }

            @Override
            public boolean open(int path) {
                return open[path];
            }
        });
        ChunkPlacement out = new ChunkPlacement();
        assertTrue(rr.place(1, 100, out));
        assertEquals(0, out.path());
        assertEquals(Long.MAX_VALUE, out.maxBytes());
        assertEquals(2, rr.pick());
        assertEquals(0, rr.pick(), "wraps past the last path");
        open[0] = false;
        open[2] = false;
        assertEquals(-1, rr.pick());
        assertFalse(rr.place(1, 100, out));
    }
}
