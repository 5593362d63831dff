package dev.virtuoso.reassembler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ReassemblyQueuesTest {

    private static void assertHead(NoticeQueue q, int type, long seq, long len, int extra) {
        assertEquals(type, q.headType());
        assertEquals(seq, q.headSeq());
        assertEquals(len, q.headLength());
        assertEquals(extra, q.headExtra());
    }

    @Test
    void noticeQueueIsABoundedFifoThatWraps() {
        NoticeQueue q = new NoticeQueue(2);
        assertTrue(q.isEmpty());
        assertTrue(q.add((byte) 1, 10, 100, 5));
        assertTrue(q.add((byte) 2, 11, 200, 6));
        assertFalse(q.add((byte) 3, 12, 300, 7), "full");
        assertHead(q, 1, 10, 100, 5);
        q.removeHead();
        assertTrue(q.add((byte) 3, 12, 300, 7));
        assertHead(q, 2, 11, 200, 6);
        q.removeHead();
        assertHead(q, 3, 12, 300, 7);
        q.removeHead();
        assertTrue(q.isEmpty());
        assertTrue(q.add((byte) 4, 13, 400, 8));
        assertHead(q, 4, 13, 400, 8);
    }

    @Test
    void noticeQueueStartsSmallAndGrowsInOrderUpToItsLimit() {
        NoticeQueue q = new NoticeQueue(100);
        assertEquals(NoticeQueue.INITIAL_ENTRIES, q.capacity());
        // wrap the ring first, so a growth has to unwrap it
        for (int k = 0; k < 10; k++) {
            assertTrue(q.add((byte) 1, -1, 0, 0));
            q.removeHead();
        }
        for (int k = 0; k < 100; k++) {
            assertTrue(q.add((byte) (k % 4 + 1), k, 10L * k, k), "entry " + k);
        }
        assertEquals(100, q.capacity(), "doubled up to the limit, not beyond");
        assertFalse(q.add((byte) 1, 100, 0, 0), "full at the limit");
        for (int k = 0; k < 100; k++) {
            assertHead(q, k % 4 + 1, k, 10L * k, k);
            q.removeHead();
        }
        assertTrue(q.isEmpty());
        NoticeQueue one = new NoticeQueue(1);
        assertTrue(one.add((byte) 1, 1, 1, 1));
        assertFalse(one.add((byte) 1, 2, 1, 1), "a queue of one");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new NoticeQueue(0));
    }

    @Test
    void remoteReceivesAreFullWhenAdvertsAreAWholeRingAhead() {
        RemoteReceives r = new RemoteReceives(3);
        assertEquals(3, r.size());
        assertFalse(r.available());
        assertFalse(r.full());
        r.nextAdvert = 2;
        assertTrue(r.available());
        assertFalse(r.full());
        r.nextAdvert = 3;
        assertTrue(r.full(), "three adverts, none used");
        r.nextSend = 1;
        assertFalse(r.full());
        r.nextSend = 3;
        assertFalse(r.available());
        assertEquals(1, r.index(4));
        assertEquals(2, r.index(-2), "unsigned: 2^64 - 2 = 2 (mod 3), a signed remainder would be -2");
    }
}
