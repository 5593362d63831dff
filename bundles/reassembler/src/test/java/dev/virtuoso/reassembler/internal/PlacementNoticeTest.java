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
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.reassembler.internal.ReassemblyHarness.Delivered;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * A large MP_SEND's placement is announced by a notice on a path (a SEND with immediate into a
 * receive slot), not over the control channel: credits, order, duplicates, validation, fallback.
 */
class PlacementNoticeTest {
    private final SendTarget target = new SendTarget();
    private final PlacementNotice notice = new PlacementNotice();

    private static ByteBuffer postLarge(ReassemblyHarness h, int n, int capacity) {
        ByteBuffer region = ByteBuffer.allocateDirect(n * capacity);
        for (int k = 0; k < n; k++) {
            assertTrue(h.b.r.postReceive(100 + k, region, k * capacity, capacity, 0x5000 + (long) k * capacity, 7, true));
        }
        return region;
    }

    private static byte[] payload(int seq, int length, int paths) {
        return ByteBuffer.allocate(Notices.PAYLOAD_BYTES).putInt(seq).putInt(length).put((byte) paths).array();
    }

    @Test
    void largeSendsAreDeliveredByNoticesAndNeverReportedOverTheControlChannel() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 1024, 1024);
        postLarge(h, 3, 4096);
        h.exchange();
        long[] seq = new long[3];
        for (int k = 0; k < 3; k++) {
            assertEquals(Reassembly.LARGE, h.a.r.reserveSend(2000 + k, target));
            seq[k] = target.sequence();
        }
        h.a.r.sendFinished(seq[2], true, MpStatus.SUCCESS, 2002, 2);
        h.a.r.sendFinished(seq[1], true, MpStatus.SUCCESS, 2001, 1);
        h.exchange();
        assertEquals(0, h.b.deliver(), "the first message is not placed yet");
        h.a.r.sendFinished(seq[0], true, MpStatus.SUCCESS, 2000, 3);
        h.exchange();
        assertEquals(3, h.b.deliver());
        assertEquals(List.of(new Delivered(100, MpStatus.SUCCESS, 2000, 3), new Delivered(101, MpStatus.SUCCESS, 2001, 1),
                new Delivered(102, MpStatus.SUCCESS, 2002, 2)), h.b.delivered);
        assertEquals(3, h.a.r.counters().noticesSent());
        assertEquals(3, h.b.r.counters().noticesReceived());
        assertEquals(3, h.b.r.counters().largeReceived());
        assertEquals(0, h.b.r.counters().placementReportsReceived(), "no SEND_DONE on the control channel");
        assertEquals(0, h.b.r.counters().bytesCopied(), "a notice's payload is not message data");
    }

    @Test
    void aNoticeIsChargedASlotCreditAndWaitsForOne() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 3, 256, 256);
        postLarge(h, 3, 1024);
        h.exchange();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(10, target));
        int small0 = target.immData();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(10, target));
        int small1 = target.immData();
        assertEquals(Reassembly.LARGE, h.a.r.reserveSend(1000, target));
        h.a.r.sendFinished(target.sequence(), true, MpStatus.SUCCESS, 1000, 1);
        assertTrue(h.a.r.noticesPending());
        assertFalse(h.a.r.nextNotice(notice), "the small messages left only the control messages' credit");
        assertTrue(h.a.r.counters().sendsWaitingForCredit() > 0);
        h.b.arriveSmall(small0, new byte[10]);
        h.b.arriveSmall(small1, new byte[10]);
        h.exchange();
        assertFalse(h.a.r.noticesPending(), "sent once the credits came back");
        assertEquals(3, h.b.deliver());
        assertEquals(new Delivered(102, MpStatus.SUCCESS, 1000, 1), h.b.delivered.get(2));
        assertEquals(1, h.a.r.counters().noticesSent());
    }

    @Test
    void aNoticeReSentAfterAPathFailureIsADuplicate() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 256, 256);
        postLarge(h, 2, 1024);
        h.exchange();
        h.a.r.reserveSend(500, target);
        h.a.r.sendFinished(target.sequence(), true, MpStatus.SUCCESS, 500, 2);
        assertTrue(h.a.r.nextNotice(notice));
        byte[] p = payload((int) notice.sequence(), 500, 2);
        h.b.arriveSmall(notice.immData(), p);
        h.b.arriveSmall(notice.immData(), p);
        assertEquals(1, h.b.r.counters().duplicates(), "placed, not yet delivered");
        assertEquals(1, h.b.deliver());
        h.b.arriveSmall(notice.immData(), p);
        assertEquals(2, h.b.r.counters().duplicates(), "already delivered");
        assertEquals(1, h.b.r.counters().noticesReceived());
    }

    @Test
    void noticesAreValidated() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 8, 256, 256);
        postLarge(h, 2, 1024);
        h.exchange();
        int imm0 = Notices.NOTICE;
        assertThrows(ReassemblyException.class, () -> h.b.arriveSmall(imm0, new byte[8]), "short payload");
        assertThrows(ReassemblyException.class, () -> h.b.arriveSmall(imm0, new byte[10]), "long payload");
        assertThrows(ReassemblyException.class, () -> h.b.arriveSmall(imm0, payload(1, 10, 1)),
                "payload names another sequence than the immediate");
        assertThrows(ReassemblyException.class, () -> h.b.arriveSmall(imm0, payload(0, 1025, 1)),
                "more bytes than the buffer holds");
        assertThrows(ReassemblyException.class, () -> h.b.arriveSmall(imm0, payload(0, 10, 65)), "65 paths");
        assertThrows(ReassemblyException.class, () -> h.b.arriveSmall(Notices.NOTICE | 2, payload(2, 10, 1)),
                "never advertised");
        // a small message may come as a WRITE with immediate (zero copy), a notice never does
        IbvWc writeImm = new IbvWc().set(h.b.srq.posted.removeFirst()[0], IbvWcStatus.SUCCESS,
                IbvWcOpcode.RECV_RDMA_WITH_IMM, 0, Notices.NOTICE, IbvWc.WITH_IMM, 1, 1, 0);
        assertThrows(ReassemblyException.class, () -> h.b.r.onCompletion(writeImm), "no notice by WRITE_WITH_IMM");
        assertEquals(7, h.b.r.counters().violations(), "every violation is counted");
        assertEquals(0, h.b.deliver());
        h.b.arriveSmall(imm0, payload(0, 1024, 64));
        assertEquals(1, h.b.deliver());
        assertEquals(new Delivered(100, MpStatus.SUCCESS, 1024, 64), h.b.delivered.get(0));
    }

    @Test
    void sequenceNumbersWrapInThe31BitsOfTheImmediate() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(2, 3, 256, 256);
        ByteBuffer region = ByteBuffer.allocateDirect(2048);
        // ten rounds of two receives: small and large alternate, the relative match stays exact
        for (int round = 0; round < 10; round++) {
            h.b.r.postReceive(2 * round, region, 0, 1024, 0x5000, 7, true);
            h.b.r.postReceive(2 * round + 1, region, 1024, 1024, 0x5400, 7, true);
            h.exchange();
            assertEquals(Reassembly.SMALL, h.a.r.reserveSend(5, target));
            assertEquals(0, target.immData() & Notices.NOTICE, "a small message's immediate has no notice bit");
            h.b.arriveSmall(target.immData(), new byte[] {1, 2, 3, 4, 5});
            assertEquals(Reassembly.LARGE, h.a.r.reserveSend(700, target));
            h.a.r.sendFinished(target.sequence(), true, MpStatus.SUCCESS, 700, 1);
            h.exchange();
            assertEquals(2, h.b.deliver());
        }
        assertEquals(20, h.b.delivered.size());
        byte[] got = new byte[5];
        region.get(0, got);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, got);
    }

    @Test
    void aFailedNoticeFallsBackToTheControlChannelAndReturnsItsCredit() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 3, 256, 256);
        postLarge(h, 2, 1024);
        h.exchange();
        h.a.r.reserveSend(600, target);
        h.a.r.sendFinished(target.sequence(), true, MpStatus.SUCCESS, 600, 2);
        assertTrue(h.a.r.nextNotice(notice));
        h.a.r.noticeFinished(notice.slot(), MpStatus.REMOTE_OPERATION_ERROR);
        assertEquals(1, h.a.r.counters().noticeFallbacks());
        h.exchange();
        assertEquals(1, h.b.r.counters().placementReportsReceived());
        assertEquals(1, h.b.deliver());
        assertEquals(new Delivered(100, MpStatus.SUCCESS, 600, 2), h.b.delivered.get(0));
        assertEquals(2, h.b.r.counters().creditsReturned(), "the notice's credit and the report's message's");
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(5, target));
    }

    @Test
    void aNoticeFlushedAtTeardownIsNotReportedOverTheControlChannel() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 3, 256, 256);
        postLarge(h, 1, 1024);
        h.exchange();
        h.a.r.reserveSend(600, target);
        h.a.r.sendFinished(target.sequence(), true, MpStatus.SUCCESS, 600, 2);
        assertTrue(h.a.r.nextNotice(notice));
        h.a.r.noticeFinished(notice.slot(), MpStatus.FLUSHED);
        assertEquals(0, h.a.r.counters().noticeFallbacks());
        assertFalse(h.a.r.noticesPending(), "nothing to report for a flushed notice");
    }

    @Test
    void aFailedNoticeThatHadLandedIsNotPlacedTwice() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 3, 256, 256);
        postLarge(h, 2, 1024);
        h.exchange();
        h.a.r.reserveSend(600, target);
        h.a.r.sendFinished(target.sequence(), true, MpStatus.SUCCESS, 600, 2);
        assertTrue(h.a.r.nextNotice(notice));
        h.b.arriveSmall(notice.immData(), payload(0, 600, 2));
        h.a.r.noticeFinished(notice.slot(), MpStatus.PATH_FAILURE);
        h.exchange();
        assertEquals(1, h.b.r.counters().duplicates());
        assertEquals(1, h.b.deliver());
        h.assertCreditsConserved(); // one credit for one notice, though it landed and was reported
    }
}
