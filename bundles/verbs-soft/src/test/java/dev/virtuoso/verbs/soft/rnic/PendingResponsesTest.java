package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.verbs.soft.packet.Aeth;

/** The responder's queue of READ response streams and ACKs/NAKs queued behind them. */
class PendingResponsesTest {

    /**
     * However many ACKs and NAKs pile up behind a long READ, the READs the requester may still
     * have outstanding (max_dest_rd_atomic) find room: a READ is never dropped for a full queue.
     */
    @Test
    void controlResponsesNeverTakeTheRoomOfAllowedReads() {
        PendingResponses q = new PendingResponses(4);
        assertTrue(q.addRead(0, 1000, null, 0, 0));
        int psn = 1000;
        for (int i = 0; i < 200; i++) {
            // alternating ACK and NAK at rising PSNs: nothing coalesces
            q.addControl(Aeth.ACK_UNLIMITED, psn++);
            q.addControl(Aeth.NAK_PSN_SEQUENCE, psn++);
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(q.addRead(psn, 1, null, 0, 0), "READ " + (i + 2) + " of 4 refused");
            psn++;
        }
        assertEquals(4, q.reads());
        assertFalse(q.addRead(psn, 1, null, 0, 0), "a fifth READ beyond max_dest_rd_atomic 4");
    }

    @Test
    void theNewestControlResponseReplacesTheTailWhenOnlyReadRoomIsLeft() {
        PendingResponses q = new PendingResponses(1);
        assertTrue(q.addRead(0, 10, null, 0, 0));
        int psn = 10;
        for (int i = 0; i < 50; i++) {
            q.addControl(Aeth.ACK_UNLIMITED, psn++);
            q.addControl(Aeth.NAK_PSN_SEQUENCE, psn++);
        }
        q.pop(); // the READ
        int last = 0;
        int controls = 0;
        while (!q.isEmpty()) {
            assertEquals(PendingResponses.CONTROL, q.headKind());
            last = q.headPsn();
            q.pop();
            controls++;
        }
        assertEquals(psn - 1, last, "the newest response is kept");
        assertTrue(controls <= 4 * 1 + 8 - 1, controls + " controls");
    }

    @Test
    void repeatedRnrNaksForOnePsnTakeOneEntry() {
        PendingResponses q = new PendingResponses(2);
        assertTrue(q.addRead(0, 10, null, 0, 0));
        for (int i = 0; i < 30; i++) {
            q.addControl(Aeth.RNR_NAK | 12, 10);
        }
        q.pop();
        q.pop();
        assertTrue(q.isEmpty());
    }

    @Test
    void controlResponsesFillAllButTheRoomOfTheReadsStillAllowedAndReplacingTheTailCountsAsQueued() {
        PendingResponses q = new PendingResponses(2); // 4 x 2 + 8 = 16 entries
        assertTrue(q.addControl(Aeth.ACK_UNLIMITED, 5), "a response into an empty queue");
        assertEquals(PendingResponses.CONTROL, q.headKind());
        assertEquals(5, q.headPsn());
        q.pop();
        assertTrue(q.isEmpty());
        assertTrue(q.addRead(0, 10, null, 0, 0));
        int psn = 10;
        for (int i = 0; i < 50; i++) {
            assertTrue(q.addControl(Aeth.ACK_UNLIMITED, psn++), "queued, or put in the tail's place");
            assertTrue(q.addControl(Aeth.NAK_PSN_SEQUENCE, psn++), "queued, or put in the tail's place");
        }
        assertTrue(q.addRead(psn, 1, null, 0, 0), "the second READ allowed still finds its room");
        assertEquals(PendingResponses.READ, q.headKind());
        assertEquals(0, q.headPsn());
        q.pop();
        int controls = 0;
        while (q.headKind() == PendingResponses.CONTROL) {
            q.pop();
            controls++;
        }
        assertEquals(16 - 2, controls, "every entry but the two READs' holds a control response");
        assertEquals(PendingResponses.READ, q.headKind());
        assertEquals(psn, q.headPsn());
    }
}
