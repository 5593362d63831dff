package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;

/** The engine's three rings on their own: capacity, full and empty edges, wrap-around. */
class RingsTest {

    private static ByteBuffer bytes(int from, int n) {
        ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (from + i));
        }
        return b;
    }

    private static byte[] peek(ByteRing ring, int skip, int n) {
        ByteBuffer dst = ByteBuffer.allocate(n);
        ring.peek(skip, dst, n);
        assertEquals(n, dst.position());
        return dst.array();
    }

    @Test
    void byteRingRejectsACapacityThatIsNotAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new ByteRing(12));
        assertThrows(IllegalArgumentException.class, () -> new ByteRing(0));
        assertEquals(16, new ByteRing(16).capacity());
    }

    @Test
    void byteRingWritesExactlyUpToItsCapacityAndNoFurther() {
        ByteRing ring = new ByteRing(16);
        assertEquals(16, ring.free());
        assertEquals(0, ring.readable());
        ByteBuffer ten = bytes(1, 10);
        assertTrue(ring.write(ten));
        assertEquals(10, ten.position(), "the source is consumed");
        assertEquals(6, ring.free());
        assertEquals(10, ring.readable());
        ByteBuffer seven = bytes(50, 7);
        assertFalse(ring.write(seven), "7 bytes do not fit in 6");
        assertEquals(0, seven.position(), "nothing copied");
        assertEquals(10, ring.readable());
        assertTrue(ring.write(bytes(50, 6)), "exactly the free room fits");
        assertEquals(0, ring.free());
        assertEquals(16, ring.readable());
    }

    @Test
    void byteRingWrapsAroundOnWriteAndOnPeek() {
        ByteRing ring = new ByteRing(16);
        assertTrue(ring.write(bytes(0, 12)));
        ring.commitRead(12);
        assertEquals(16, ring.free());
        assertTrue(ring.write(bytes(100, 10)), "4 bytes at the end, 6 at the start");
        assertArrayEquals(bytes(100, 10).array(), peek(ring, 0, 10));
        assertArrayEquals(bytes(103, 5).array(), peek(ring, 3, 5), "peek skips from the head");
        assertEquals(10, ring.readable(), "peeking consumes nothing");
        ByteBuffer view = ring.readableView();
        assertEquals(12, view.position());
        assertEquals(4, view.remaining(), "the contiguous part stops at the end of the buffer");
        ring.commitRead(4);
        view = ring.readableView();
        assertEquals(0, view.position());
        assertEquals(6, view.remaining());
    }

    @Test
    void byteRingWritableViewIsTheContiguousFreeRegion() {
        ByteRing ring = new ByteRing(16);
        ByteBuffer w = ring.writable();
        assertEquals(0, w.position());
        assertEquals(16, w.remaining());
        w.put(bytes(7, 5));
        ring.commitWrite(5);
        assertEquals(5, ring.readable());
        assertArrayEquals(bytes(7, 5).array(), peek(ring, 0, 5));
        w = ring.writable();
        assertEquals(5, w.position());
        assertEquals(11, w.remaining());
        ring.commitWrite(11);
        assertEquals(0, ring.writable().remaining(), "full: nothing writable");
        ring.commitRead(3);
        w = ring.writable();
        assertEquals(0, w.position(), "the freed bytes are at the start");
        assertEquals(3, w.remaining());
    }

    @Test
    void byteRingWritableViewStopsAtTheEndOfTheBufferWhenMoreIsFree() {
        ByteRing ring = new ByteRing(16);
        assertTrue(ring.write(bytes(0, 12)));
        ring.commitRead(12);
        ByteBuffer w = ring.writable();
        assertEquals(12, w.position());
        assertEquals(4, w.remaining(), "16 bytes free, 4 of them before the end of the buffer");
    }

    @Test
    void requestRingRoundsUpToAPowerOfTwoAndReportsFull() {
        RequestRing ring = new RequestRing(5); // 8 slots
        for (int i = 0; i < 8; i++) {
            assertEquals(i, ring.claim());
        }
        assertEquals(-1, ring.claim(), "full after 8 claims");
        assertEquals(4, slotsOf(new RequestRing(4)), "4 slots for 4");
        assertEquals(4, slotsOf(new RequestRing(1)), "never fewer than 4 slots");
        assertEquals(16, slotsOf(new RequestRing(9)));
    }

    /** Claims until the ring is full. */
    private static int slotsOf(RequestRing ring) {
        int n = 0;
        while (ring.claim() >= 0) {
            n++;
            assertTrue(n <= 1024, "never full");
        }
        return n;
    }

    @Test
    void requestRingHandsOutRequestsInPublishOrderAndReusesReleasedSlots() {
        RequestRing ring = new RequestRing(4);
        assertNull(ring.peek(), "empty");
        long a = ring.claim();
        long b = ring.claim();
        assertEquals(2, ring.claim());
        assertEquals(3, ring.claim());
        assertEquals(-1, ring.claim());
        ring.slot(a).wrId = 11;
        ring.slot(a).region = null;
        ring.slot(b).wrId = 22;
        ring.publish(b);
        assertNull(ring.peek(), "the oldest claim is not published yet");
        ring.publish(a);
        RequestRing.Request first = ring.peek();
        assertSame(ring.slot(a), first);
        assertEquals(11, first.wrId);
        assertEquals(-1, ring.claim(), "still full until released");
        ring.release();
        assertEquals(22, ring.peek().wrId);
        long c = ring.claim();
        assertEquals(4, c, "the released slot is claimable again");
        assertSame(first, ring.slot(c));
        ring.release();
        assertNull(ring.peek(), "tickets 2 and 3 claimed but not published");
        ring.publish(2);
        ring.publish(3);
        ring.publish(c);
        ring.release();
        ring.release();
        assertSame(first, ring.peek(), "ticket 4 is in the first slot again");
    }

    @Test
    void completionRingIsBoundedAndFifo() {
        CompletionRing ring = new CompletionRing(3); // 4 slots
        MpCompletion out = new MpCompletion();
        assertFalse(ring.nonEmpty());
        assertFalse(ring.poll(out));
        for (int i = 0; i < 4; i++) {
            assertTrue(ring.offer(i, MpOpcode.WRITE, MpStatus.SUCCESS, 100 + i, 1, null), "offer " + i);
        }
        assertFalse(ring.offer(9, MpOpcode.WRITE, MpStatus.SUCCESS, 0, 1, null), "full at 4");
        assertTrue(ring.nonEmpty());
        assertTrue(ring.poll(out));
        assertEquals(0, out.wrId());
        assertEquals(100, out.byteLength());
        assertTrue(ring.offer(4, MpOpcode.SEND, MpStatus.REMOTE_OPERATION_ERROR, 7, 2, "detail"), "one slot freed");
        for (int i = 1; i <= 4; i++) {
            assertTrue(ring.poll(out));
            assertEquals(i, out.wrId());
        }
        assertEquals(MpOpcode.SEND, out.opcode());
        assertEquals(MpStatus.REMOTE_OPERATION_ERROR, out.status());
        assertEquals(2, out.paths());
        assertEquals("detail", out.detail());
        assertFalse(ring.nonEmpty());
        assertFalse(ring.poll(out));
    }
}
