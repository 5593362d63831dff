package dev.virtuoso.decomposer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RangeQueueTest {

    private static void assertHead(RangeQueue q, int m, long off, long len) {
        assertEquals(m, q.headMessage());
        assertEquals(off, q.headOffset());
        assertEquals(len, q.headLength());
    }

    @Test
    void holdsUpToItsCapacityInFifoOrder() {
        RangeQueue q = new RangeQueue(2);
        assertTrue(q.isEmpty());
        assertTrue(q.add(1, 100, 10));
        assertTrue(q.add(2, 200, 20));
        assertFalse(q.add(3, 300, 30), "full");
        assertEquals(2, q.size());
        assertHead(q, 1, 100, 10);
        q.removeHead();
        assertEquals(1, q.size());
        assertHead(q, 2, 200, 20);
        q.removeHead();
        assertTrue(q.isEmpty());
    }

    @Test
    void advanceHeadConsumesTheFrontOfTheHeadRange() {
        RangeQueue q = new RangeQueue(2);
        q.add(1, 100, 50);
        q.advanceHead(20);
        assertHead(q, 1, 120, 30);
    }

    @Test
    void wrapsAroundTheRing() {
        RangeQueue q = new RangeQueue(3);
        q.add(1, 10, 1);
        q.add(2, 20, 2);
        q.removeHead();
        q.removeHead();
        q.add(3, 30, 3);
        q.add(4, 40, 4);
        q.add(5, 50, 5);
        assertFalse(q.add(6, 60, 6));
        assertHead(q, 3, 30, 3);
        q.removeHead();
        assertHead(q, 4, 40, 4);
        q.removeHead();
        assertHead(q, 5, 50, 5);
    }

    @Test
    void removeMessageDropsItsEntriesAndKeepsTheOthersInOrder() {
        RangeQueue q = new RangeQueue(4);
        q.add(9, 0, 1);
        q.removeHead();
        q.add(7, 70, 1);
        q.add(8, 80, 2);
        q.add(7, 71, 3);
        q.add(9, 90, 4);
        assertEquals(2, q.removeMessage(7));
        assertEquals(2, q.size());
        assertHead(q, 8, 80, 2);
        q.removeHead();
        assertHead(q, 9, 90, 4);
        assertEquals(0, q.removeMessage(7));
        assertEquals(1, q.size());
        assertEquals(1, q.removeMessage(9));
        assertTrue(q.isEmpty());
    }

    @Test
    void removeMessageWithOnlyOthersQueuedKeepsThemAll() {
        RangeQueue q = new RangeQueue(3);
        q.add(1, 10, 1);
        q.add(2, 20, 2);
        q.removeHead();
        q.add(3, 30, 3);
        q.add(4, 40, 4);
        assertEquals(0, q.removeMessage(5));
        assertEquals(3, q.size());
        assertHead(q, 2, 20, 2);
        q.removeHead();
        assertHead(q, 3, 30, 3);
        q.removeHead();
        assertHead(q, 4, 40, 4);
    }

    @Test
    void aQueueGrowsWhenFullUpToItsLimitKeepingOrderAcrossTheWrap() {
        RangeQueue q = new RangeQueue(300);
        for (int i = 0; i < 40; i++) {
            assertTrue(q.add(i, i, 1));
        }
        for (int i = 0; i < 30; i++) {
            q.removeHead(); // the head moves, so growth copies across the wrap
        }
        for (int i = 40; i < 330; i++) {
            assertTrue(q.add(i, i, 1), "entry " + i);
        }
        assertEquals(300, q.size());
        assertFalse(q.add(330, 330, 1), "the limit holds");
        for (int i = 30; i < 330; i++) {
            assertEquals(i, q.headMessage());
            assertEquals(i, q.headOffset());
            q.removeHead();
        }
        assertTrue(q.isEmpty());
    }
}
