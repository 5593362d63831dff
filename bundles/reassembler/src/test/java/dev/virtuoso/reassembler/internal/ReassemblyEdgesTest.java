package dev.virtuoso.reassembler.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.reassembler.internal.ReassemblyHarness.MemoryMr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * One reassembly driven record by record: the control messages it writes are decoded here and the
 * peer's records are written by hand, so limits, sizes and counters can be checked exactly.
 */
class ReassemblyEdgesTest {
    /** The slot wr_id tag, as the engine assigns it. */
    private static final long TAG = 2L << 60;

    private static final long SLAB_BASE = 0x10000;
    private static final long NOTICE_BASE = 0x80000;

    record Completion(long wrId, MpStatus status, long length, int paths, String detail) {
    }

    private final List<ByteBuffer> sent = new ArrayList<>();
    private final List<Completion> completed = new ArrayList<>();
    private final List<long[]> posted = new ArrayList<>();
    private final SendTarget target = new SendTarget();
    private final IbvWc wc = new IbvWc();
    private final PlacementNotice control = new PlacementNotice();
    private boolean srqRefuses;
    private boolean srqClosed;
    private ByteBuffer slab;
    private ByteBuffer noticePayload;
    private MemoryMr noticeMr;
    private MemoryMr mr;
    private DefaultReassembly r;
    private int slotBytes;

    private DefaultReassembly open(int maxReceives, int slots, int slotSize, long splitThreshold) {
        slotBytes = slotSize;
        slab = ByteBuffer.allocateDirect(slots * slotSize);
        mr = new MemoryMr(slab, SLAB_BASE);
        IbvSrq srq = new IbvSrq() {
            @Override
            public void postSrqRecv(IbvRecvWr wr) throws VerbsException {
                if (srqRefuses) {
                    throw new VerbsException(12, "srq full");
                }
                posted.add(new long[] {wr.wrId(), wr.sge(0).addr(), wr.sge(0).length()});
            }

            @Override
            public void close() {
                srqClosed = true;
            }
        };
        noticePayload = ByteBuffer.allocateDirect(Notices.regionBytes(maxReceives));
        noticeMr = new MemoryMr(noticePayload, NOTICE_BASE);
        r = new DefaultReassembly(new ReassemblyConfig("t", maxReceives, slots, slotSize, splitThreshold, TAG), srq, mr,
                slab, new Notices(noticeMr, noticePayload, maxReceives));
        try {
            r.postSrqSlots(); // as ReassemblerComponent does
        } catch (VerbsException e) {
            throw new IllegalStateException(e);
        }
        return r;
    }

    private void arrive(int slot, int imm, byte[] payload) throws ReassemblyException {
        ByteBuffer s = slab.duplicate();
        s.position(slot * slotBytes);
        s.put(payload);
        wc.set(TAG | slot, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, payload.length, imm,
                IbvWc.WITH_IMM, 1, 2, 0);
        r.onCompletion(wc);
    }

    /**
     * Posts every control message that is due, as the engine would, each completing at once: its
     * records go to {@link #sent}.
     *
     * @return control messages sent
     */
    private int duty() {
        int n = 0;
        while (r.nextControl(control)) {
            byte[] body = new byte[control.length()];
            noticePayload.get((int) (control.localAddr() - NOTICE_BASE), body);
            sent.add(ByteBuffer.wrap(body));
            r.noticeFinished(control.slot(), MpStatus.SUCCESS);
            n++;
        }
        return n;
    }

    private int deliver() {
        return r.deliver((wrId, st, len, paths, detail) -> completed.add(new Completion(wrId, st, len, paths, detail)));
    }

    private static ByteBuffer adverts(int firstSeq, int n, int capacity, int flags) {
        ByteBuffer b = ByteBuffer.allocate(3 + 21 * n).put(ControlRecords.RECV_POSTED).putShort((short) n);
        for (int k = 0; k < n; k++) {
            b.putInt(firstSeq + k).putLong(0x9000 + 100L * k).putInt(40 + k).putInt(capacity).put((byte) flags);
        }
        return b.flip();
    }

    private static ByteBuffer credit(int n) {
        return ByteBuffer.allocate(5).put(ControlRecords.CREDIT).putInt(n).flip();
    }

    private static ByteBuffer report(byte type, int seq, int len, int extra) {
        return ByteBuffer.allocate(10).put(type).putInt(seq).putInt(len).put((byte) extra).flip();
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 7 * i);
        }
        return b;
    }

    // ------------------------------------------------------------------ start and slots

    @Test
    void everySlotIsPostedAtItsOwnAddressBeforeStart() throws Exception {
        // posted before the handshake ends: the peer's first SEND must never find the SRQ empty (RNR)
        open(4, 3, 128, 64);
        assertEquals(3, posted.size());
        for (int k = 0; k < 3; k++) {
            assertArrayEquals(new long[] {TAG | k, SLAB_BASE + 128L * k, 128}, posted.get(k));
        }
        r.start(1, 3, 64);
        assertEquals(3, posted.size(), "start posts nothing more");
        assertThrows(IllegalStateException.class, () -> r.start(1, 3, 64));
        assertSame(r.config(), r.config());
        assertEquals(3, r.config().slots());
    }

    @Test
    void startRejectsPeerSizesTooSmallForControlMessages() {
        open(4, 3, 64, 64);
        assertThrows(IllegalArgumentException.class, () -> r.start(0, 3, 64));
        assertThrows(IllegalArgumentException.class, () -> r.start(1, 2, 64), "control messages need 3 slots");
        assertThrows(IllegalArgumentException.class, () -> r.start(1, 3, 63), "a control message needs 64 bytes");
        assertEquals(3, posted.size(), "a refused start posts nothing");
        assertThrows(IllegalArgumentException.class, () -> open(4, 2, 64, 64));
        assertThrows(IllegalArgumentException.class, () -> open(4, 3, 63, 64));
    }

    @Test
    void slotErrorsAreCountedAndTheSlotPostedAgain() throws Exception {
        open(4, 3, 64, 64).start(4, 3, 64);
        wc.set(TAG | 1, IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0, 0, 1, 2, 0);
        r.onCompletion(wc);
        assertEquals(1, r.counters().slotErrors());
        assertEquals(4, posted.size());
        assertArrayEquals(new long[] {TAG | 1, SLAB_BASE + 64, 64}, posted.get(3));

        srqRefuses = true;
        r.onCompletion(wc);
        assertEquals(3, r.counters().slotErrors(), "the failed completion and the failed re-post");

        wc.set(TAG | 3, IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0, 0, 1, 2, 0);
        assertThrows(ReassemblyException.class, () -> r.onCompletion(wc), "slot 3 does not exist");
        assertEquals(3, r.counters().slotErrors());
    }

    @Test
    void closedReassemblyNeitherPostsSlotsNorTakesReceives() throws Exception {
        open(4, 3, 64, 64).start(4, 3, 64);
        r.close();
        assertTrue(srqClosed);
        assertTrue(mr.closed);
        wc.set(TAG, IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0, 0, 1, 2, 0);
        r.onCompletion(wc);
        assertEquals(3, posted.size(), "no slot posted after close");
        assertFalse(r.postReceive(1, ByteBuffer.allocate(8), 0, 8, 0, 0, false));
        assertEquals(0, duty());
    }

    // ------------------------------------------------------------------ receive side

    @Test
    void receivesAreBoundedByMaxReceives() throws Exception {
        open(2, 3, 64, 64).start(4, 3, 64);
        ByteBuffer region = ByteBuffer.allocate(256);
        assertTrue(r.postReceive(1, region, 0, 64, 0, 0, false));
        assertTrue(r.postReceive(2, region, 64, 64, 0, 0, false));
        assertFalse(r.postReceive(3, region, 128, 64, 0, 0, false));
        assertEquals(2, r.receivesInProgress());
        duty();
        arrive(0, 0, bytes(4, 1));
        assertEquals(1, deliver());
        assertEquals(1, r.receivesInProgress());
        assertTrue(r.postReceive(3, region, 128, 64, 0, 0, false));
        assertEquals(2, r.receivesInProgress());
    }

    @Test
    void smallMessagesAreCopiedFromTheirSlotUpToTheBufferCapacity() throws Exception {
        open(4, 3, 64, 64).start(4, 3, 128); // the peer's slot holds all three advertisements
        ByteBuffer region = ByteBuffer.allocate(256);
        r.postReceive(10, region, 0, 8, 0, 0, false);
        r.postReceive(11, region, 8, 64, 0, 0, false);
        r.postReceive(12, region, 72, 64, 0, 0, false);
        duty();
        arrive(1, 1, bytes(64, 3));
        arrive(0, 0, bytes(8, 5));
        arrive(1, 2, new byte[0]);
        assertEquals(3, deliver());
        assertEquals(List.of(new Completion(10, MpStatus.SUCCESS, 8, 1, null),
                new Completion(11, MpStatus.SUCCESS, 64, 1, null), new Completion(12, MpStatus.SUCCESS, 0, 1, null)),
                completed);
        byte[] got = new byte[8];
        region.get(0, got);
        assertArrayEquals(bytes(8, 5), got);
        byte[] got2 = new byte[64];
        region.get(8, got2);
        assertArrayEquals(bytes(64, 3), got2, "copied from slot 1");
        assertEquals(3, r.counters().smallReceived());
        assertEquals(72, r.counters().bytesCopied());
        assertEquals(0, r.counters().receivesFailed());
    }

    @Test
    void aSmallMessageLongerThanTheBufferFailsItsReceive() throws Exception {
        open(4, 3, 64, 64).start(4, 3, 64);
        r.postReceive(10, ByteBuffer.allocate(64), 0, 8, 0, 0, false);
        duty();
        arrive(0, 0, bytes(9, 1));
        deliver();
        assertEquals(MpStatus.LOCAL_LENGTH_ERROR, completed.get(0).status());
        assertEquals(9, completed.get(0).length());
        assertEquals(1, r.counters().receivesFailed());
        assertEquals(0, r.counters().smallReceived());
        assertEquals(0, r.counters().bytesCopied());
    }

    @Test
    void smallMessagesAreMatchedRelativeToTheDeliveredSequence() throws Exception {
        open(4, 3, 64, 64).start(4, 3, 128); // the peer's slot holds all three advertisements
        ByteBuffer region = ByteBuffer.allocate(256);
        for (int k = 0; k < 3; k++) {
            r.postReceive(k, region, 64 * k, 64, 0, 0, false);
        }
        duty();
        arrive(0, 0, bytes(1, 1));
        arrive(1, 1, bytes(2, 1));
        assertEquals(2, deliver());
        arrive(0, 2, bytes(3, 1));
        assertThrows(ReassemblyException.class, () -> arrive(1, 3, bytes(1, 1)), "receive 3 was never advertised");
        assertEquals(1, deliver());
        assertEquals(3, completed.get(2).length());
        arrive(1, 1, bytes(2, 1));
        assertEquals(1, r.counters().duplicates(), "already delivered");
    }

    @Test
    void flushCompletesEverythingAndAdvertisesNothingMore() throws Exception {
        open(4, 3, 64, 64).start(4, 3, 64);
        ByteBuffer region = ByteBuffer.allocate(256);
        r.postReceive(1, region, 0, 64, 0, 0, false);
        duty();
        sent.clear();
        r.postReceive(2, region, 64, 64, 0, 0, false);
        r.postReceive(3, region, 128, 64, 0, 0, false);
        arrive(0, 0, bytes(5, 1));
        r.onControl(ByteBuffer.allocate(0));
        assertEquals(3, r.flush((wrId, st, len, paths, detail) -> completed.add(
                new Completion(wrId, st, len, paths, detail)), MpStatus.FLUSHED));
        assertEquals(List.of(new Completion(1, MpStatus.SUCCESS, 5, 1, null),
                new Completion(2, MpStatus.FLUSHED, 0, 0, "connection closed"),
                new Completion(3, MpStatus.FLUSHED, 0, 0, "connection closed")), completed);
        assertEquals(0, r.receivesInProgress());
        duty();
        for (ByteBuffer b : sent) {
            assertTrue(b.get(0) != ControlRecords.RECV_POSTED, "flushed receives are not advertised");
        }
    }

    @Test
    void flushKeepsTheOutcomeOfAReceivePlacedBehindAnUnplacedOne() throws Exception {
        open(4, 3, 64, 64).start(4, 3, 64);
        ByteBuffer region = ByteBuffer.allocate(256);
        r.postReceive(1, region, 0, 64, 0, 0, false);
        r.postReceive(2, region, 64, 64, 0, 0, false);
        duty();
        arrive(1, 1, bytes(7, 1));
        assertEquals(2, r.flush((wrId, st, len, paths, detail) -> completed.add(
                new Completion(wrId, st, len, paths, detail)), MpStatus.FLUSHED));
        assertEquals(List.of(new Completion(1, MpStatus.FLUSHED, 0, 0, "connection closed"),
                new Completion(2, MpStatus.SUCCESS, 7, 1, null)), completed);
    }

    // ------------------------------------------------------------------ control channel out

    @Test
    void creditsGoBackOnlyOnceHalfOfTheSlotsIsUsed() throws Exception {
        open(8, 8, 64, 64).start(8, 8, 128);
        ByteBuffer region = ByteBuffer.allocate(512);
        for (int k = 0; k < 4; k++) {
            r.postReceive(k, region, 64 * k, 64, 0x7000 + 64 * k, 9, k == 1);
        }
        assertEquals(1, duty());
        assertEquals(1, r.counters().controlSent());
        ByteBuffer advert = sent.remove(0);
        assertEquals(3 + 4 * 21, advert.remaining());
        assertEquals(ControlRecords.RECV_POSTED, advert.get());
        assertEquals(4, advert.getShort());
        for (int k = 0; k < 4; k++) {
            assertEquals(k, advert.getInt());
            assertEquals(0x7000 + 64 * k, advert.getLong());
            assertEquals(9, advert.getInt());
            assertEquals(64, advert.getInt());
            assertEquals(k == 1 ? ControlRecords.FLAG_WRITABLE : 0, advert.get());
        }

        for (int k = 0; k < 3; k++) {
            arrive(k, k, bytes(1, 1));
            assertEquals(0, duty(), (k + 1) + " credits are below the threshold of 8 / 2");
        }
        arrive(3, 3, bytes(1, 1));
        assertEquals(1, duty());
        ByteBuffer c = sent.remove(0);
        assertEquals(5, c.remaining());
        assertEquals(ControlRecords.CREDIT, c.get());
        assertEquals(4, c.getInt());
        assertEquals(4, r.counters().creditsReturned());
        assertEquals(2, r.counters().controlSent());
    }

    @Test
    void advertisementsAreSplitOverMessagesThatFitThePeersSlot() throws Exception {
        // a 64-byte slot holds two advertisements (3 + 2 x 21 bytes); 3 slots: 3 credits, and the
        // last one only for a message that returns credits
        open(8, 3, 64, 64).start(8, 3, 64);
        ByteBuffer region = ByteBuffer.allocate(512);
        for (int k = 0; k < 5; k++) {
            r.postReceive(k, region, 64 * k, 64, 0, 0, false);
        }
        assertEquals(2, duty(), "two and two; then the peer holds four of five, at least half");
        assertFalse(r.noticesPending(), "the fifth waits");
        for (int k = 0; k < 2; k++) {
            ByteBuffer b = sent.get(k);
            assertEquals(3 + 2 * 21, b.remaining());
            assertEquals(2, b.getShort(1));
            assertEquals(2 * k, b.getInt(3));
        }
        arrive(0, 0, bytes(1, 1));
        arrive(1, 1, bytes(1, 1));
        assertEquals(2, deliver());
        assertEquals(1, duty(), "two credits to return take the last credit; the fifth advertisement rides along");
        ByteBuffer third = sent.get(2);
        assertEquals(ControlRecords.CREDIT_BYTES + 3 + 21, third.remaining());
        assertEquals(ControlRecords.CREDIT, third.get(0));
        assertEquals(2, third.getInt(1));
        assertEquals(ControlRecords.RECV_POSTED, third.get(5));
        assertEquals(4, third.getInt(8));
        assertEquals(3, r.counters().controlSent());
    }

    /** 16 slots of 256 bytes each side; four receives of {@code capacity} posted and advertised at once. */
    private ByteBuffer fourAdvertised(int capacity, boolean writable) throws Exception {
        open(16, 16, 256, 256).start(16, 16, 256);
        ByteBuffer region = ByteBuffer.allocate(16 * capacity);
        for (int k = 0; k < 4; k++) {
            r.postReceive(k, region, capacity * k, capacity, 0, 0, writable);
        }
        assertEquals(1, duty(), "the peer held none: all four at once");
        return region;
    }

    @Test
    void advertisementsWaitWhileThePeerHoldsHalfOfThePostedReceives() throws Exception {
        ByteBuffer region = fourAdvertised(64, false);
        sent.clear();
        // request-response with four receives posted ahead: each arrival is delivered and reposted
        for (int k = 0; k < 2; k++) {
            arrive(k, k, bytes(1, 1));
            assertEquals(1, deliver());
            r.postReceive(4 + k, region, 64 * (4 + k), 64, 0, 0, false);
            assertEquals(0, duty(), "the peer still holds " + (3 - k) + " of the 4 posted");
            assertFalse(r.noticesPending());
        }
        arrive(2, 2, bytes(1, 1));
        assertEquals(1, deliver());
        r.postReceive(6, region, 64 * 6, 64, 0, 0, false);
        assertEquals(1, duty(), "one of 4: fewer than half");
        ByteBuffer b = sent.remove(0);
        assertEquals(ControlRecords.CREDIT, b.get(0), "the credits, not due yet, ride along");
        assertEquals(3, b.getInt(1));
        assertEquals(ControlRecords.RECV_POSTED, b.get(5));
        assertEquals(3, b.getShort(6));
        assertEquals(4, b.getInt(8));
        assertEquals(ControlRecords.CREDIT_BYTES + 3 + 3 * 21, b.remaining());
    }

    @Test
    void afterALargeMessageTheNextAdvertisementGoesAtOnce() throws Exception {
        ByteBuffer region = fourAdvertised(100, true);
        r.onControl(report(ControlRecords.SEND_DONE, 0, 100, 2)); // a large message, placed
        assertEquals(1, deliver());
        r.postReceive(4, region, 400, 100, 0, 0, true);
        assertEquals(1, duty(), "the peer holds three of four, but large messages need theirs at once");
        arrive(1, 1, bytes(1, 1)); // a small one next
        assertEquals(1, deliver());
        r.postReceive(5, region, 500, 100, 0, 0, true);
        assertEquals(0, duty(), "after a small one it waits again");
    }

    @Test
    void reportsThatDoNotFitGoInTheNextMessage() throws Exception {
        open(8, 3, 64, 64).start(8, 8, 64);
        r.onControl(adverts(0, 7, 10, 0));
        for (int k = 0; k < 7; k++) {
            assertEquals(Reassembly.TOO_LONG, r.reserveSend(11 + k, target));
        }
        assertEquals(2, duty());
        ByteBuffer first = sent.get(0);
        assertEquals(6 * ControlRecords.NOTICE_BYTES, first.remaining(), "six reports fill 60 of 64 bytes");
        for (int k = 0; k < 6; k++) {
            assertEquals(ControlRecords.SEND_FAILED, first.get());
            assertEquals(k, first.getInt());
            assertEquals(11 + k, first.getInt());
            assertEquals(ControlRecords.REASON_TOO_LONG, first.get());
        }
        ByteBuffer second = sent.get(1);
        assertEquals(ControlRecords.NOTICE_BYTES, second.remaining());
        assertEquals(6, second.getInt(1));
    }

    @Test
    void oneControlMessageIsInFlightAndAFailedOneGoesAgainUnchanged() throws Exception {
        open(8, 3, 64, 64).start(8, 8, 64);
        r.postReceive(1, ByteBuffer.allocate(64), 0, 64, 0, 0, false);
        assertTrue(r.nextControl(control));
        int slot = control.slot();
        int imm = control.immData();
        int len = control.length();
        assertEquals(Notices.CONTROL, imm, "control class, sequence 0");
        assertEquals(-1, control.sequence());
        r.postReceive(2, ByteBuffer.allocate(64), 0, 64, 0, 0, false);
        r.postReceive(3, ByteBuffer.allocate(64), 0, 64, 0, 0, false); // the peer holds one of three: due
        assertFalse(r.nextControl(control), "the first is in flight");
        assertFalse(r.noticesPending(), "nothing can go before its SEND ends");
        r.noticeFinished(slot, MpStatus.PATH_FAILURE);
        assertTrue(r.noticesPending());
        assertTrue(r.nextControl(control));
        assertEquals(imm, control.immData(), "the same message again");
        assertEquals(len, control.length());
        assertEquals(3 + 21, len, "only the first receive's advertisement");
        assertEquals(1, r.counters().controlResent());
        assertEquals(1, r.counters().controlSent(), "sent once, posted twice");
        r.noticeFinished(slot, MpStatus.SUCCESS);
        assertTrue(r.nextControl(control));
        assertEquals(Notices.CONTROL | 1, control.immData());
        r.noticeFinished(slot, MpStatus.FLUSHED);
        assertFalse(r.noticesPending(), "a flushed message is not sent again");
        assertThrows(IllegalStateException.class, () -> r.noticeFinished(slot, MpStatus.SUCCESS), "none in flight");
    }

    @Test
    void theLastCreditIsLeftToControlMessagesThatReturnCredits() throws Exception {
        open(8, 3, 64, 64).start(8, 3, 64);
        r.onControl(adverts(0, 4, 64, 0));
        assertEquals(Reassembly.SMALL, r.reserveSend(1, target));
        assertEquals(Reassembly.SMALL, r.reserveSend(1, target));
        assertEquals(Reassembly.NOT_READY, r.reserveSend(1, target), "the last credit is not for data");
        r.postReceive(1, ByteBuffer.allocate(64), 0, 64, 0, 0, false);
        long waits = r.counters().sendsWaitingForCredit();
        assertEquals(0, duty(), "an advertisement alone does not take the last credit");
        assertEquals(waits + 1, r.counters().sendsWaitingForCredit(), "counted as a wait for credit");
        arrive(0, Notices.CONTROL, new byte[0]); // the peer's first control message, no records
        assertEquals(1, r.counters().controlReceived());
        assertEquals(1, duty(), "with a credit to return it does");
        ByteBuffer b = sent.get(0);
        assertEquals(ControlRecords.CREDIT, b.get());
        assertEquals(1, b.getInt());
        assertEquals(ControlRecords.RECV_POSTED, b.get());
        assertEquals(Reassembly.NOT_READY, r.reserveSend(1, target), "no credit left at all");
    }

    @Test
    void dutyBeforeStartSendsNothing() {
        open(8, 3, 64, 64);
        r.postReceive(1, ByteBuffer.allocate(64), 0, 64, 0, 0, false);
        assertEquals(0, duty());
        assertTrue(sent.isEmpty());
    }

    // ------------------------------------------------------------------ control channel in

    @Test
    void controlBeforeStartIsRejected() {
        open(8, 3, 64, 64);
        assertThrows(ReassemblyException.class, () -> r.onControl(credit(1)));
    }

    @Test
    void truncatedRecordsAreRejected() throws Exception {
        open(8, 3, 64, 64).start(8, 3, 64);
        assertThrows(ReassemblyException.class, () -> r.onControl(ByteBuffer.wrap(new byte[] {2, 0, 0, 1})));
        assertThrows(ReassemblyException.class, () -> r.onControl(ByteBuffer.wrap(new byte[] {3, 0, 0, 0, 0, 0, 0, 0, 1})));
        assertThrows(ReassemblyException.class, () -> r.onControl(ByteBuffer.wrap(new byte[] {4, 0, 0, 0, 0, 0, 0, 0, 1})));
        assertThrows(ReassemblyException.class, () -> r.onControl(ByteBuffer.wrap(new byte[] {1, 0})));
    }

    @Test
    void creditsNeverExceedThePeersSlots() throws Exception {
        open(8, 3, 64, 64).start(8, 3, 64);
        r.onControl(adverts(0, 4, 64, 0));
        assertEquals(Reassembly.SMALL, r.reserveSend(1, target));
        assertEquals(Reassembly.SMALL, r.reserveSend(1, target));
        assertEquals(Reassembly.NOT_READY, r.reserveSend(1, target));
        assertEquals(Reassembly.NOT_READY, r.reserveSend(1, target));
        assertEquals(2, r.counters().sendsWaitingForCredit());
        r.onControl(credit(1));
        assertEquals(Reassembly.SMALL, r.reserveSend(1, target));
        r.onControl(credit(2));
        assertThrows(ReassemblyException.class, () -> r.onControl(credit(1)), "3 credits for 2 slots");
    }

    @Test
    void advertisementsAreCheckedAndBounded() throws Exception {
        open(8, 3, 64, 64).start(2, 3, 64);
        r.onControl(adverts(0, 1, 0, 0));
        assertEquals(Reassembly.TOO_LONG, r.reserveSend(1, target), "a zero-capacity receive is valid but small");
        assertThrows(ReassemblyException.class, () -> r.onControl(adverts(1, 1, 64, 2)), "unknown flag");
        assertThrows(ReassemblyException.class, () -> r.onControl(adverts(1, 1, -1, 0)), "negative capacity");
        r.onControl(adverts(1, 1, 64, 0));
        r.onControl(adverts(2, 1, 64, 0));
        assertThrows(ReassemblyException.class, () -> r.onControl(adverts(3, 1, 64, 0)),
                "two receives outstanding at most");
    }

    @Test
    void sizeDecidesSmallOrLargeAtTheThresholdAndThePeersSlotSize() throws Exception {
        open(8, 3, 64, 128).start(8, 3, 64);
        r.onControl(adverts(0, 4, 100, ControlRecords.FLAG_WRITABLE));
        assertEquals(Reassembly.SMALL, r.reserveSend(64, target), "fits the peer's 64-byte slot");
        assertEquals(0, target.sequence());
        assertEquals(Reassembly.LARGE, r.reserveSend(65, target));
        assertEquals(1, target.sequence());
        assertEquals(0x9000 + 100, target.remoteAddr());
        assertEquals(41, target.rkey());
        assertEquals(Reassembly.LARGE, r.reserveSend(100, target), "exactly the buffer's capacity");
        assertEquals(Reassembly.TOO_LONG, r.reserveSend(101, target));

        open(8, 3, 64, 64).start(8, 3, 128);
        r.onControl(adverts(0, 2, 100, ControlRecords.FLAG_WRITABLE));
        assertEquals(Reassembly.SMALL, r.reserveSend(63, target));
        assertEquals(Reassembly.LARGE, r.reserveSend(64, target), "at the split threshold");
    }

    @Test
    void placementReportsCompleteReceivesAndAreChecked() throws Exception {
        open(8, 3, 64, 64).start(8, 3, 128); // the peer's slot holds all three advertisements
        ByteBuffer region = ByteBuffer.allocate(512);
        for (int k = 0; k < 3; k++) {
            r.postReceive(k, region, 100 * k, 100, 0, 0, true);
        }
        duty();
        r.onControl(report(ControlRecords.SEND_DONE, 0, 100, 2));
        assertThrows(ReassemblyException.class, () -> r.onControl(report(ControlRecords.SEND_DONE, 0, 100, 2)),
                "reported twice");
        assertEquals(1, deliver());
        assertEquals(new Completion(0, MpStatus.SUCCESS, 100, 2, null), completed.get(0));
        assertEquals(1, r.counters().largeReceived());
        assertThrows(ReassemblyException.class, () -> r.onControl(report(ControlRecords.SEND_DONE, 0, 1, 1)),
                "already delivered");
        assertThrows(ReassemblyException.class, () -> r.onControl(report(ControlRecords.SEND_DONE, 1, 101, 1)),
                "longer than the buffer");
        r.onControl(report(ControlRecords.SEND_DONE, 2, 50, 3));
        r.onControl(report(ControlRecords.SEND_DONE, 1, 60, 1));
        assertThrows(ReassemblyException.class, () -> r.onControl(report(ControlRecords.SEND_DONE, 3, 1, 1)),
                "never advertised");
        assertEquals(2, deliver());
        assertEquals(new Completion(1, MpStatus.SUCCESS, 60, 1, null), completed.get(1));
        assertEquals(new Completion(2, MpStatus.SUCCESS, 50, 3, null), completed.get(2));
        assertEquals(3, r.counters().largeReceived());
    }

    @Test
    void failureReportsGiveEachReasonItsStatus() throws Exception {
        open(8, 4, 64, 64).start(8, 4, 128); // the peer's slot holds all four advertisements
        ByteBuffer region = ByteBuffer.allocate(512);
        for (int k = 0; k < 4; k++) {
            r.postReceive(k, region, 100 * k, 100, 0, 0, true);
        }
        duty();
        sent.clear();
        r.onControl(report(ControlRecords.SEND_FAILED, 0, 200, ControlRecords.REASON_TOO_LONG));
        r.onControl(report(ControlRecords.SEND_FAILED, 1, 300, ControlRecords.REASON_NOT_WRITABLE));
        r.onControl(report(ControlRecords.SEND_FAILED, 2, 5,
                ControlRecords.REASON_FAILED | ControlRecords.FLAG_SMALL));
        assertThrows(ReassemblyException.class, () -> r.onControl(report(ControlRecords.SEND_FAILED, 3, 5, 9)));
        assertEquals(4, r.counters().receivesFailed(), "counted before the reason is read");
        assertEquals(3, deliver());
        assertEquals(MpStatus.LOCAL_LENGTH_ERROR, completed.get(0).status());
        assertEquals(200, completed.get(0).length());
        assertEquals(MpStatus.LOCAL_PROTECTION_ERROR, completed.get(1).status());
        assertEquals(MpStatus.REMOTE_OPERATION_ERROR, completed.get(2).status());
        assertEquals(0, completed.get(2).paths());

        r.onControl(report(ControlRecords.SEND_FAILED, 0, 5, ControlRecords.REASON_FAILED));
        assertEquals(1, r.counters().duplicates(), "a report for a delivered receive is a duplicate");
        assertEquals(0, duty(), "one credit to return waits for a second (at least 2 per message)");
        r.onControl(report(ControlRecords.SEND_FAILED, 3, 5, ControlRecords.REASON_FAILED | ControlRecords.FLAG_SMALL));
        assertEquals(1, duty(), "the charged slot credits go back");
        ByteBuffer c = sent.get(0);
        assertEquals(ControlRecords.CREDIT, c.get());
        assertEquals(2, c.getInt());
    }

    @Test
    void senderReportsItsOutcomes() throws Exception {
        open(8, 3, 64, 64).start(8, 3, 64);
        r.onControl(adverts(0, 3, 1000, ControlRecords.FLAG_WRITABLE));
        r.sendFinished(0, true, MpStatus.SUCCESS, 900, 3);
        r.sendFinished(1, false, MpStatus.SUCCESS, 10, 1);
        r.sendFinished(2, false, MpStatus.PATH_FAILURE, 10, 1);
        r.sendFinished(3, true, MpStatus.PATH_FAILURE, 800, 2);
        assertEquals(1, duty());
        ByteBuffer b = sent.get(0);
        assertEquals(20, b.remaining(), "a small success needs no report, a large one's goes on a path");
        assertEquals(ControlRecords.SEND_FAILED, b.get());
        assertEquals(2, b.getInt());
        assertEquals(10, b.getInt());
        assertEquals((byte) (ControlRecords.FLAG_SMALL | ControlRecords.REASON_FAILED), b.get());
        assertEquals(ControlRecords.SEND_FAILED, b.get());
        assertEquals(3, b.getInt());
        assertEquals(800, b.getInt());
        assertEquals(ControlRecords.REASON_FAILED, b.get());

        PlacementNotice n = new PlacementNotice();
        assertTrue(r.noticesPending());
        assertTrue(r.nextNotice(n), "the large success is announced by a notice");
        assertEquals(0, n.sequence());
        assertEquals(Notices.NOTICE, n.immData(), "notice bit and sequence 0");
        assertEquals(Notices.PAYLOAD_BYTES, n.length());
        assertEquals(noticeMr.lkey(), n.lkey());
        int at = (int) (n.localAddr() - NOTICE_BASE);
        assertEquals(0, noticePayload.getInt(at));
        assertEquals(900, noticePayload.getInt(at + 4));
        assertEquals(3, noticePayload.get(at + 8));
        assertFalse(r.nextNotice(n));
        assertFalse(r.noticesPending());
        assertEquals(1, r.counters().noticesSent());
        r.noticeFinished(n.slot(), MpStatus.SUCCESS);
        assertEquals(0, duty(), "a delivered notice needs nothing on the control channel");
    }
}
