package dev.virtuoso.reassembler.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.reassembler.internal.ReassemblyHarness.Delivered;

/**
 * A small message sent while a control message is due rides inside it: one SEND on the wire for
 * both, the bytes copied at each end, delivered in order, taken once.
 */
class InlineSendTest {
    private static final long BASE = 0x9000;
    private static final int RKEY = 5;
    private static final int SLOTS = 4;
    private static final int SLOT_BYTES = 1024;

    private final SendTarget target = new SendTarget();
    private final ByteBuffer bRegion = ByteBuffer.allocateDirect(8 * 256);
    private final ByteBuffer aRegion = ByteBuffer.allocateDirect(8 * 256);
    private final ByteBuffer source = ByteBuffer.allocateDirect(2048);

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 13);
        }
        return b;
    }

    /** b has {@code receives} receives of {@code capacity} advertised to a; a has nothing due. */
    private ReassemblyHarness harness(int receives, int capacity, int slotBytes) throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, SLOTS, slotBytes, 4096);
        for (int k = 0; k < receives; k++) {
            assertTrue(h.b.r.postReceive(200 + k, bRegion, k * 256, capacity, BASE + k * 256, RKEY, true));
        }
        h.exchange();
        return h;
    }

    private int reserveInline(ReassemblyHarness h, byte[] payload) {
        source.clear().put(100, payload);
        return h.a.r.reserveInline(payload.length, source, 100, target);
    }

    /** a posts a receive (its advertisement is due), reserves {@code payload} inline and takes the control message. */
    private void takeControlCarrying(ReassemblyHarness h, byte[] payload) {
        assertTrue(h.a.r.postReceive(300, aRegion, 0, 256, 0x1000, 9, true));
        assertEquals(Reassembly.INLINE, reserveInline(h, payload));
        assertTrue(h.a.r.nextNotice(h.a.notice));
        assertTrue(h.a.notice.carriesSend());
    }

    private byte[] at(ByteBuffer region, int offset, int n) {
        byte[] got = new byte[n];
        region.get(offset, got);
        return got;
    }

    @Test
    void aSmallMessageRidesInTheControlMessageThatAdvertisesAReceive() throws Exception {
        ReassemblyHarness h = harness(2, 256, SLOT_BYTES);
        long controlBefore = h.a.r.counters().controlSent();
        assertTrue(h.a.r.postReceive(300, aRegion, 0, 256, 0x1000, 9, true)); // a's advertisement is due
        assertEquals(Reassembly.INLINE, reserveInline(h, bytes(40, 3)));
        assertEquals(0, target.sequence());
        assertTrue(h.a.r.inlinePending());
        int slotsBefore = h.b.srq.posted.size();

        assertTrue(h.a.r.nextNotice(h.a.notice));
        assertTrue(h.a.notice.carriesSend());
        assertFalse(h.a.r.nextNotice(new dev.virtuoso.reassembler.PlacementNotice()), "one message for both");
        byte[] wire = new byte[h.a.notice.length()];
        h.a.noticeMr.buffer().get((int) (h.a.notice.localAddr() - h.a.noticeMr.address()), wire);
        h.b.arriveSmall(h.a.notice.immData(), wire);
        assertTrue(h.a.r.inlinePending(), "the message ends with its control message's SEND");
        h.a.r.noticeFinished(h.a.notice.slot(), MpStatus.SUCCESS);
        assertFalse(h.a.r.inlinePending());

        assertEquals(1, h.b.deliver());
        assertEquals(List.of(new Delivered(200, MpStatus.SUCCESS, 40, 1)), h.b.delivered);
        assertArrayEquals(bytes(40, 3), at(bRegion, 0, 40));
        assertEquals(slotsBefore, h.b.srq.posted.size(), "the slot it consumed is posted again");
        assertEquals(1, h.b.r.counters().smallInline());
        assertEquals(1, h.b.r.counters().smallReceived());
        assertEquals(0, h.b.r.counters().smallZeroCopy());
        assertEquals(40, h.b.r.counters().bytesCopied());
        assertEquals(1, h.a.r.counters().sentInline());
        assertEquals(controlBefore + 1, h.a.r.counters().controlSent());

        h.exchange();
        h.assertCreditsConserved();
        // the advertisement in the same message reached b: b may now send into a's receive
        assertEquals(Reassembly.TOO_LONG, h.b.r.reserveSend(257, target));
        // the next message takes the next receive, by the ordinary way when no record waits
        assertEquals(Reassembly.NOT_READY, reserveInline(h, bytes(8, 1)));
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        assertEquals(1, target.sequence());
    }

    @Test
    void nothingIsReservedWhileAControlMessageIsInFlight() throws Exception {
        ReassemblyHarness h = harness(3, 256, SLOT_BYTES);
        assertTrue(h.a.r.postReceive(300, aRegion, 0, 256, 0x1000, 9, true));
        assertTrue(h.a.r.nextNotice(h.a.notice)); // the advertisement goes alone, still in flight
        assertFalse(h.a.notice.carriesSend());
        assertEquals(Reassembly.NOT_READY, reserveInline(h, bytes(8, 1)), "one control message in flight");
        assertFalse(h.a.r.inlinePending());
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        assertEquals(0, target.sequence(), "nothing was reserved by the refused attempt");
        assertEquals(0, h.a.r.counters().sentInline());
        h.a.r.noticeFinished(h.a.notice.slot(), MpStatus.SUCCESS);
        assertEquals(Reassembly.NOT_READY, reserveInline(h, bytes(8, 2)), "no record waits");
        int next = (int) h.a.r.counters().controlReceived();
        h.a.arriveSmall(Notices.CONTROL | next, new byte[0]); // b's control message: a owes a credit, not due
        assertEquals(Reassembly.INLINE, reserveInline(h, bytes(8, 2)), "it rides with the credit that waits");
        assertEquals(1, target.sequence());
        assertTrue(h.a.r.nextNotice(h.a.notice));
        assertEquals(ControlRecords.CREDIT_BYTES + ControlRecords.INLINE_HEADER + 8, h.a.notice.length());
    }

    @Test
    void aMessageRidesOnlyIfItsControlMessageFitsOnePacket() throws Exception {
        ReassemblyHarness h = harness(3, 256, SLOT_BYTES);
        assertThrows(IllegalArgumentException.class, () -> h.a.r.packetBytes(255));
        h.a.r.packetBytes(256);
        // nothing due: the slot (1024) would take it beside the records, a 256-byte packet would not
        assertEquals(Reassembly.NOT_READY, reserveInline(h, bytes(256 - 9 - 63, 1)), "no room for the records");
        assertEquals(Reassembly.INLINE, reserveInline(h, bytes(256 - 9 - 64, 1)));
        assertTrue(h.a.r.nextNotice(h.a.notice));
        assertTrue(h.a.notice.length() <= 256, "one packet: " + h.a.notice.length());
        h.a.r.noticeFinished(h.a.notice.slot(), MpStatus.SUCCESS);
        assertEquals(Reassembly.NOT_READY, reserveInline(h, bytes(200, 2)), "nothing due");
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(200, target), "it goes in a packet of its own");
        assertTrue(h.a.r.postReceive(301, aRegion, 256, 256, 0x1100, 9, true)); // due: the peer holds none
        assertEquals(Reassembly.INLINE, reserveInline(h, bytes(200, 3)), "with due records it rides, two packets");
    }

    @Test
    void onlyMessagesThatFitBesideTheRecordsAndInTheReceiveRide() throws Exception {
        ReassemblyHarness small = harness(3, 100, 256);
        assertTrue(small.a.r.postReceive(300, aRegion, 0, 256, 0x1000, 9, true));
        assertEquals(Reassembly.NOT_READY, reserveInline(small, bytes(101, 1)), "longer than the receive");
        assertEquals(Reassembly.TOO_LONG, small.a.r.reserveSend(101, target), "reported the ordinary way");

        // a control message is at most the peer's slot (256 here) and keeps 64 bytes for records
        ReassemblyHarness h = harness(3, 256, 256);
        assertTrue(h.a.r.postReceive(300, aRegion, 0, 256, 0x1000, 9, true));
        assertEquals(Reassembly.NOT_READY, reserveInline(h, bytes(256 - 9 - 63, 1)), "no room for the records");
        assertEquals(Reassembly.INLINE, reserveInline(h, bytes(256 - 9 - 64, 1)));
        assertTrue(h.a.r.nextNotice(h.a.notice));
        assertEquals(256, h.a.notice.length() + 64 - 5 - 24, "credit + one advertisement beside the message");

        ReassemblyHarness split = new ReassemblyHarness(8, SLOTS, SLOT_BYTES, 64);
        assertTrue(split.b.r.postReceive(200, bRegion, 0, 256, BASE, RKEY, true));
        split.exchange();
        assertTrue(split.a.r.postReceive(300, aRegion, 0, 256, 0x1000, 9, true));
        assertEquals(Reassembly.NOT_READY, split.a.r.reserveInline(64, source, 0, target), "at the split threshold");
        assertEquals(Reassembly.INLINE, split.a.r.reserveInline(63, source, 0, target));
    }

    @Test
    void advertisementsThatDoNotFitBesideTheMessageFollowInTheNextControlMessage() throws Exception {
        ReassemblyHarness h = harness(3, 256, 256);
        for (int k = 0; k < 5; k++) {
            assertTrue(h.a.r.postReceive(300 + k, aRegion, k * 256, 256, 0x1000 + k * 256, 9, true));
        }
        assertEquals(Reassembly.INLINE, reserveInline(h, bytes(183, 7)));
        h.exchange();
        assertFalse(h.a.r.inlinePending());
        assertEquals(1, h.b.deliver());
        assertArrayEquals(bytes(183, 7), at(bRegion, 0, 183));
        assertTrue(h.a.r.counters().controlSent() >= 2);
        h.assertCreditsConserved();
        for (int k = 0; k < 5; k++) { // known to b: it can tell each of them too short (no credit taken)
            assertEquals(Reassembly.TOO_LONG, h.b.r.reserveSend(257, target), "receive " + k + " advertised");
        }
        assertEquals(Reassembly.NOT_READY, h.b.r.reserveSend(257, target), "no sixth");
    }

    @Test
    void aControlMessageWhoseSendFailedIsPostedAgainWithItsMessageAndTakenOnce() throws Exception {
        ReassemblyHarness h = harness(2, 256, SLOT_BYTES);
        takeControlCarrying(h, bytes(30, 5));
        byte[] wire = new byte[h.a.notice.length()];
        h.a.noticeMr.buffer().get((int) (h.a.notice.localAddr() - h.a.noticeMr.address()), wire);
        int imm = h.a.notice.immData();
        h.b.arriveSmall(imm, wire); // it landed, but the sender saw its path fail
        h.a.r.noticeFinished(h.a.notice.slot(), MpStatus.PATH_FAILURE);
        assertTrue(h.a.r.inlinePending(), "posted again: the MP_SEND has not ended");

        assertTrue(h.a.r.nextNotice(h.a.notice));
        assertTrue(h.a.notice.carriesSend());
        assertEquals(imm, h.a.notice.immData(), "unchanged");
        h.b.arriveSmall(h.a.notice.immData(), wire);
        h.a.r.noticeFinished(h.a.notice.slot(), MpStatus.SUCCESS);
        assertFalse(h.a.r.inlinePending());

        assertEquals(1, h.b.deliver());
        assertEquals(1, h.b.r.counters().smallInline());
        assertEquals(1, h.b.r.counters().duplicates());
        assertEquals(1, h.a.r.counters().controlResent());
        h.exchange();
        h.assertCreditsConserved();
    }

    @Test
    void aControlMessageFlushedAtTeardownEndsItsMessage() throws Exception {
        ReassemblyHarness h = harness(1, 256, SLOT_BYTES);
        takeControlCarrying(h, bytes(8, 5));
        h.a.r.noticeFinished(h.a.notice.slot(), MpStatus.FLUSHED);
        assertFalse(h.a.r.inlinePending());
        assertFalse(h.a.r.nextNotice(h.a.notice), "not posted again");
    }

    /** Records: u8 5, u32 seq, u32 length, bytes; after them a credit, which must still be read. */
    private static ByteBuffer inline(int seq, int declared, int actual) {
        ByteBuffer b = ByteBuffer.allocate(9 + actual + 5);
        b.put(ControlRecords.INLINE_SEND).putInt(seq).putInt(declared).put(new byte[actual]);
        if (declared == actual) {
            b.put(ControlRecords.CREDIT).putInt(0);
        }
        return b.flip();
    }

    @Test
    void aHostileInlineRecordIsAViolation() throws Exception {
        ReassemblyHarness h = harness(2, 100, SLOT_BYTES);
        assertThrows(ReassemblyException.class, () -> h.b.r.onControl(inline(2, 8, 8)), "never advertised");
        assertThrows(ReassemblyException.class, () -> h.b.r.onControl(inline(0, 101, 101)), "longer than the buffer");
        assertThrows(ReassemblyException.class, () -> h.b.r.onControl(inline(0, 50, 40)), "truncated");
        assertThrows(ReassemblyException.class, () -> h.b.r.onControl(inline(0, -1, 4)), "length beyond 2^31");
        assertEquals(4, h.b.r.counters().violations());
        assertEquals(0, h.b.deliver(), "nothing placed");

        h.b.r.onControl(inline(1, 16, 16)); // the second receive, then the first: delivered in order
        h.b.r.onControl(inline(0, 100, 100));
        assertEquals(2, h.b.deliver());
        assertEquals(List.of(new Delivered(200, MpStatus.SUCCESS, 100, 1), new Delivered(201, MpStatus.SUCCESS, 16, 1)),
                h.b.delivered);
    }
}
