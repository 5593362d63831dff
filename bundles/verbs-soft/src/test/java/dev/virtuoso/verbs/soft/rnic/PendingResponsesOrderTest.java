package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.verbs.soft.packet.Aeth;

/**
 * The responder's response queue entry by entry: what a READ stream reports as it is sent, ACK
 * coalescing and implied ACKs, NAKs, truncation for a replayed READ, and the ring's wrap.
 */
class PendingResponsesOrderTest {
    private static final SoftMr MR = new SoftMr(null, ByteBuffer.allocateDirect(16), 4096, 1, 2, 0);

    @Test
    void aReadStreamReportsEachResponseAsItIsSent() {
        PendingResponses q = new PendingResponses(2);
        assertTrue(q.isEmpty());
        assertTrue(q.addRead(0xFFFFFF, 3, MR, 100, 2500));
        assertFalse(q.isEmpty());
        assertEquals(1, q.reads());
        assertEquals(PendingResponses.READ, q.headKind());
        assertEquals(0xFFFFFF, q.headPsn());
        assertSame(MR, q.headMr());
        assertEquals(100, q.headOffset());
        assertEquals(2500, q.headRemaining());
        assertTrue(q.headFresh());
        q.headSent(1024);
        assertEquals(0, q.headPsn(), "the PSN wraps");
        assertEquals(1124, q.headOffset());
        assertEquals(1476, q.headRemaining());
        assertFalse(q.headFresh());
        // an ACK at the stream's last PSN or before is implied by its responses
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 1));
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 0xFFFFFE));
        q.pop();
        assertTrue(q.isEmpty());
        assertEquals(0, q.reads());
    }

    @Test
    void acksCoalesceAndNaksQueueBehindThem() {
        PendingResponses q = new PendingResponses(1);
        assertTrue(q.addRead(10, 1, null, 0, 0));
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 11));
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 12)); // replaces the queued ACK
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 12)); // implied
        assertTrue(q.addControl(Aeth.NAK_PSN_SEQUENCE, 13));
        assertTrue(q.addControl(Aeth.NAK_PSN_SEQUENCE, 13)); // a repeat
        assertTrue(q.addControl(Aeth.RNR_NAK | 3, 13));
        q.pop();
        assertEquals(PendingResponses.CONTROL, q.headKind());
        assertEquals(Aeth.ACK_UNLIMITED, q.headSyndrome());
        assertEquals(12, q.headPsn());
        assertNull(q.headMr());
        q.pop();
        assertEquals(Aeth.NAK_PSN_SEQUENCE, q.headSyndrome());
        assertEquals(13, q.headPsn());
        q.pop();
        assertEquals(Aeth.RNR_NAK | 3, q.headSyndrome());
        q.pop();
        assertTrue(q.isEmpty());
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 20), "an empty queue takes an ACK");
        assertEquals(20, q.headPsn());
    }

    @Test
    void aReplayedReadDropsEverythingFromItsPsn() {
        PendingResponses q = new PendingResponses(3);
        assertTrue(q.addRead(0, 4, MR, 0, 4096)); // PSN 0..3
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 4));
        assertTrue(q.addRead(5, 2, MR, 0, 2048)); // PSN 5..6
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 7));
        assertEquals(2, q.reads());
        q.truncateFrom(5);
        assertEquals(1, q.reads(), "the second READ is dropped");
        assertTrue(q.addRead(5, 2, MR, 0, 2048), "and has room again");
        q.truncateFrom(3); // inside the first READ: it goes too
        assertEquals(0, q.reads());
        assertTrue(q.isEmpty());
        q.truncateFrom(0); // nothing left: nothing happens
        assertTrue(q.isEmpty());
        assertTrue(q.addRead(8, 1, MR, 0, 8));
        q.truncateFrom(9); // ends before 9: kept
        assertEquals(1, q.reads());
    }

    @Test
    void theRingWrapsAroundManyTimes() {
        PendingResponses q = new PendingResponses(1);
        for (int round = 0; round < 50; round++) {
            assertTrue(q.addRead(3 * round, 1, MR, round, 1), "round " + round);
            assertTrue(q.addControl(Aeth.NAK_PSN_SEQUENCE, 3 * round + 1));
            assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 3 * round + 2));
            assertEquals(PendingResponses.READ, q.headKind());
            assertEquals(round, q.headOffset());
            q.pop();
            assertEquals(3 * round + 1, q.headPsn());
            q.pop();
            assertEquals(3 * round + 2, q.headPsn());
            q.pop();
            assertTrue(q.isEmpty());
        }
        assertTrue(q.addRead(0, 1, MR, 0, 1));
        assertFalse(q.addRead(1, 1, MR, 0, 1), "max_dest_rd_atomic 1");
        q.clear();
        assertTrue(q.isEmpty());
        assertEquals(0, q.reads());
    }
}
