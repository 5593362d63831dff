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
 * Small messages into a remotely writable receive buffer travel as one RDMA WRITE with immediate
 * and are not copied; into any other buffer they still go by SEND into a slot and are copied.
 */
class ZeroCopySmallTest {
    private static final long BASE = 0x5000;
    private static final int RKEY = 77;
    private static final int SLOTS = 4;

    private final SendTarget target = new SendTarget();
    private final ByteBuffer region = ByteBuffer.allocateDirect(6 * 256);

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 31);
        }
        return b;
    }

    private ReassemblyHarness harness(boolean writable, int capacity) throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, SLOTS, 256, 1024);
        for (int k = 0; k < 6; k++) {
            assertTrue(h.b.r.postReceive(100 + k, region, k * 256, capacity, BASE + k * 256, RKEY, writable));
        }
        h.exchange();
        return h;
    }

    /** Places {@code payload} where the sender's WRITE goes, as the peer's RNIC would. */
    private void write(SendTarget t, byte[] payload) {
        region.put((int) (t.remoteAddr() - BASE), payload);
    }

    private byte[] at(int offset, int n) {
        byte[] got = new byte[n];
        region.get(offset, got);
        return got;
    }

    @Test
    void aWritableBufferTakesASmallMessageByWriteWithImmediateUncopied() throws Exception {
        ReassemblyHarness h = harness(true, 256);
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(20, target));
        assertTrue(target.direct());
        assertEquals(BASE, target.remoteAddr());
        assertEquals(RKEY, target.rkey());
        write(target, bytes(20, 1));
        h.b.arriveDirect(target.immData(), 20);
        assertEquals(1, h.b.deliver());
        assertEquals(List.of(new Delivered(100, MpStatus.SUCCESS, 20, 1)), h.b.delivered);
        assertArrayEquals(bytes(20, 1), at(0, 20));
        assertEquals(1, h.b.r.counters().smallReceived());
        assertEquals(1, h.b.r.counters().smallZeroCopy());
        assertEquals(0, h.b.r.counters().smallCopied());
        assertEquals(0, h.b.r.counters().bytesCopied());
        assertEquals(SLOTS, h.b.srq.posted.size(), "the slot the WRITE consumed is posted again");
    }

    @Test
    void aBufferNotRemotelyWritableIsServedByASendAndACopy() throws Exception {
        ReassemblyHarness h = harness(false, 256);
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(20, target));
        assertFalse(target.direct(), "the region does not grant REMOTE_WRITE: only a SEND can reach it");
        assertEquals(0, target.remoteAddr());
        h.b.arriveSmall(target.immData(), bytes(20, 2));
        assertEquals(1, h.b.deliver());
        assertArrayEquals(bytes(20, 2), at(0, 20));
        assertEquals(1, h.b.r.counters().smallCopied());
        assertEquals(0, h.b.r.counters().smallZeroCopy());
        assertEquals(20, h.b.r.counters().bytesCopied());
    }

    @Test
    void aZeroLengthMessageCompletesItsReceiveDirectly() throws Exception {
        ReassemblyHarness h = harness(true, 256);
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(0, target));
        assertTrue(target.direct());
        h.b.arriveDirect(target.immData(), 0);
        assertEquals(1, h.b.deliver());
        assertEquals(new Delivered(100, MpStatus.SUCCESS, 0, 1), h.b.delivered.get(0));
    }

    @Test
    void aSmallMessageLongerThanAWritableBufferIsNeverWrittenAndFailsTheReceive() throws Exception {
        ReassemblyHarness h = harness(true, 16);
        assertEquals(Reassembly.TOO_LONG, h.a.r.reserveSend(20, target));
        h.exchange();
        assertEquals(1, h.b.deliver());
        assertEquals(MpStatus.LOCAL_LENGTH_ERROR, h.b.delivered.get(0).status());
        assertEquals(SLOTS, h.b.srq.posted.size(), "no slot consumed");
        h.assertCreditsConserved(); // no credit was charged for the message, one for the report's message
        int credits = h.a.r.credits();
        for (int k = 0; k < credits - 1; k++) {
            assertEquals(Reassembly.SMALL, h.a.r.reserveSend(16, target));
        }
        assertEquals(Reassembly.NOT_READY, h.a.r.reserveSend(16, target));
        assertEquals(1, h.a.r.counters().sendsWaitingForCredit(), "a receive is advertised, the credits are spent");
    }

    @Test
    void aWriteBeyondTheAdvertisedLengthBreaksTheProtocol() throws Exception {
        ReassemblyHarness h = harness(true, 16);
        ReassemblyException e = assertThrows(ReassemblyException.class, () -> h.b.arriveDirect(0, 17));
        assertTrue(e.getMessage().contains("17 bytes"), e.getMessage());
        assertEquals(1, h.b.r.counters().violations());
        assertEquals(0, h.b.deliver());
    }

    @Test
    void aWriteIntoABufferAdvertisedNotWritableOrANoticeByWriteBreaksTheProtocol() throws Exception {
        ReassemblyHarness h = harness(false, 256);
        assertThrows(ReassemblyException.class, () -> h.b.arriveDirect(0, 4));
        assertThrows(ReassemblyException.class, () -> h.b.arriveDirect(Notices.NOTICE, Notices.PAYLOAD_BYTES));
        assertEquals(2, h.b.r.counters().violations());
        assertEquals(0, h.b.deliver());
    }

    @Test
    void eachSmallMessageIsChargedOneSlotCreditAndReturnsOne() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 3, 256, 1024);
        for (int k = 0; k < 4; k++) {
            h.b.r.postReceive(100 + k, region, k * 256, 256, BASE + k * 256, RKEY, k != 1);
        }
        h.exchange();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        assertTrue(target.direct());
        int direct = target.immData();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        assertFalse(target.direct());
        int copied = target.immData();
        assertEquals(Reassembly.NOT_READY, h.a.r.reserveSend(8, target),
                "three slots: two credits for messages, the last for control messages");
        h.b.arriveDirect(direct, 8);
        h.b.arriveSmall(copied, bytes(8, 3));
        h.exchange();
        assertEquals(2, h.b.r.counters().creditsReturned(), "the WRITE's credit and the SEND's");
        h.assertCreditsConserved();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        assertEquals(2, h.b.deliver());
    }

    @Test
    void aResentCopyOfAMessageAlreadyWrittenIsDroppedAndLeavesTheNextBufferAlone() throws Exception {
        ReassemblyHarness h = harness(true, 256);
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(20, target));
        int first = target.immData();
        write(target, bytes(20, 1));
        // the WRITE landed, but its ACK was lost on the cut path: the sender re-sends it as a SEND
        h.b.arriveDirect(first, 20);
        assertEquals(1, h.b.deliver());
        h.exchange();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(30, target));
        write(target, bytes(30, 7));
        h.b.arriveDirect(target.immData(), 30);
        h.b.arriveSmall(first, bytes(20, 99));
        assertEquals(1, h.b.r.counters().duplicates());
        assertEquals(1, h.b.deliver(), "delivered once each");
        assertEquals(List.of(new Delivered(100, MpStatus.SUCCESS, 20, 1), new Delivered(101, MpStatus.SUCCESS, 30, 1)),
                h.b.delivered);
        assertArrayEquals(bytes(20, 1), at(0, 20), "the copy went into a slot only");
        assertArrayEquals(bytes(30, 7), at(256, 30), "the next buffer is untouched");
        h.exchange();
        h.assertCreditsConserved(); // the duplicate returns no credit
        assertEquals(0, h.b.r.counters().bytesCopied());
    }

    @Test
    void aDirectSendReportedFailedFailsItsReceiveAndReturnsItsCredit() throws Exception {
        ReassemblyHarness h = harness(true, 256);
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(20, target));
        h.a.r.sendFinished(target.sequence(), false, MpStatus.PATH_FAILURE, 20, 1);
        h.exchange();
        assertEquals(1, h.b.deliver());
        assertEquals(MpStatus.REMOTE_OPERATION_ERROR, h.b.delivered.get(0).status());
        h.assertCreditsConserved(); // the report gave the charged credit back
        // the WRITE landing after all (before its path was fenced) completes nothing more
        h.b.arriveDirect(target.immData(), 20);
        assertEquals(0, h.b.deliver());
        assertEquals(1, h.b.r.counters().duplicates());
        h.exchange();
        h.assertCreditsConserved(); // the late copy's slot was charged nothing and returns nothing
    }
}
