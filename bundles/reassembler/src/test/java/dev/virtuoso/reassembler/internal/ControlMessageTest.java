package dev.virtuoso.reassembler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Random;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

import org.junit.jupiter.api.Test;

/** The reassembly's control messages on the paths: order, duplicates, re-sends and credits for credits. */
class ControlMessageTest {
    private final SendTarget target = new SendTarget();
    private final PlacementNotice message = new PlacementNotice();

    /** Takes {@code side}'s next control message (not posted yet); its bytes are returned. */
    private byte[] takeControl(ReassemblyHarness.Side side) {
        assertTrue(side.r.nextControl(message), "a control message is due");
        byte[] body = new byte[message.length()];
        side.noticeMr.buffer().get((int) (message.localAddr() - side.noticeMr.address()), body);
        return body;
    }

    @Test
    void aControlMessageReSentAfterItLandedIsTakenOnceAndCreditedOnce() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 256, 256);
        ByteBuffer region = ByteBuffer.allocateDirect(1024);
        h.b.r.postReceive(1, region, 0, 100, 0, 0, false);
        byte[] adverts = takeControl(h.b);
        int imm = message.immData();
        assertEquals(Notices.CONTROL, imm & Notices.CLASS_MASK);
        h.a.arriveSmall(imm, adverts);
        // the SEND's ACK was lost with its path: b posts it again, and the copy lands too
        h.b.r.noticeFinished(message.slot(), MpStatus.PATH_FAILURE);
        assertTrue(h.b.r.noticesPending());
        assertEquals(adverts.length, takeControl(h.b).length);
        assertEquals(imm, message.immData(), "the same message");
        h.a.arriveSmall(imm, adverts);
        h.b.r.noticeFinished(message.slot(), MpStatus.SUCCESS);
        assertEquals(1, h.a.r.counters().controlReceived());
        assertEquals(1, h.a.r.counters().duplicates(), "the copy is dropped, its advertisement not taken twice");
        assertEquals(1, h.b.r.counters().controlResent());
        h.exchange();
        h.assertCreditsConserved();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(10, target));
        assertEquals(Reassembly.NOT_READY, h.a.r.reserveSend(10, target), "one receive was advertised, once");
    }

    @Test
    void controlMessagesOutOfOrderOrByWriteBreakTheProtocol() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 256, 256);
        assertThrows(ReassemblyException.class, () -> h.a.arriveSmall(Notices.CONTROL | 1, new byte[0]),
                "message 1 before message 0");
        assertThrows(ReassemblyException.class, () -> h.a.arriveSmall(Notices.CONTROL | 1 << 27, new byte[0]),
                "a message far ahead is no duplicate");
        h.a.arriveSmall(Notices.CONTROL, new byte[0]);
        IbvWc write = new IbvWc().set(h.a.srq.posted.removeFirst()[0], IbvWcStatus.SUCCESS,
                IbvWcOpcode.RECV_RDMA_WITH_IMM, 0, Notices.CONTROL | 1, IbvWc.WITH_IMM, 1, 1, 0);
        assertThrows(ReassemblyException.class, () -> h.a.r.onCompletion(write), "no control message by WRITE");
        assertThrows(ReassemblyException.class, () -> h.a.arriveSmall(Notices.CONTROL | 1, new byte[] {9}),
                "an unknown record");
        assertEquals(4, h.a.r.counters().violations());
        assertEquals(2, h.a.r.counters().controlReceived(), "message 1 was taken, then found malformed");
    }

    @Test
    void aNoticeAndAControlMessageWithTheSameSequenceBitsAreToldApart() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 256, 256);
        ByteBuffer region = ByteBuffer.allocateDirect(4096);
        h.b.r.postReceive(1, region, 0, 2048, 0x5000, 7, true);
        h.exchange();
        assertEquals(Reassembly.LARGE, h.a.r.reserveSend(1000, target));
        h.a.r.sendFinished(target.sequence(), true, MpStatus.SUCCESS, 1000, 2);
        h.exchange();
        assertEquals(1, h.b.deliver());
        assertEquals(1, h.b.r.counters().noticesReceived());
        assertEquals(1, h.a.r.counters().controlReceived(), "b's advertisement");
    }

    @Test
    void recordsFillAMessageToTheLastByteOfThePeersSlot() throws Exception {
        for (int slotBytes : new int[] {65, 70}) {
            // 65: six reports (60 B) and the credit record (5 B); 70: seven reports, the credit waits
            ReassemblyHarness h = new ReassemblyHarness(16, 8, slotBytes, 64);
            // seven receives of 10 bytes advertised to a, handed in directly: b would advertise
            // four of seven at first (a peer holding half of them sends no more advertisements)
            ByteBuffer adverts = ByteBuffer.allocate(3 + 7 * 21).put(ControlRecords.RECV_POSTED).putShort((short) 7);
            for (int k = 0; k < 7; k++) {
                adverts.putInt(k).putLong(0x9000 + 16L * k).putInt(3).putInt(10).put((byte) 0);
            }
            h.a.r.onControl(adverts.flip());
            for (int k = 0; k < 7; k++) {
                assertEquals(Reassembly.TOO_LONG, h.a.r.reserveSend(11, target));
            }
            int next = (int) h.a.r.counters().controlReceived();
            for (int k = 0; k < 2; k++) {
                h.a.arriveSmall(Notices.CONTROL | next + k, new byte[0]); // credits for a to return
            }
            int owed = h.a.r.creditsToReturn();
            byte[] first = takeControl(h.a);
            assertEquals(slotBytes, first.length, "exactly the peer's slot");
            ByteBuffer b = ByteBuffer.wrap(first);
            int reports = slotBytes == 65 ? 6 : 7;
            for (int k = 0; k < reports; k++) {
                assertEquals(ControlRecords.SEND_FAILED, b.get(k * ControlRecords.NOTICE_BYTES));
                assertEquals(k, b.getInt(k * ControlRecords.NOTICE_BYTES + 1));
            }
            if (slotBytes == 65) {
                assertEquals(ControlRecords.CREDIT, b.get(60));
                assertEquals(owed, b.getInt(61));
            } else {
                assertEquals(owed, h.a.r.creditsToReturn(), "no room for the credits: they wait");
            }
        }
    }

    @Test
    void theNoticeRegionMustHoldTheEntriesAndTheControlBuffer() {
        ReassemblyHarness.MemoryMr mr = new ReassemblyHarness.MemoryMr(ByteBuffer.allocateDirect(64), 0x1000);
        ByteBuffer small = ByteBuffer.allocateDirect(Notices.regionBytes(4) - 1);
        assertThrows(IllegalArgumentException.class, () -> new Notices(mr, small, 4));
        ByteBuffer exact = ByteBuffer.allocateDirect(Notices.regionBytes(4));
        assertEquals(Notices.CONTROL_BYTES, new Notices(mr, exact, 4).controlBuffer().capacity());
    }

    /**
     * Both sides send small messages to each other at random with the fewest slots (3), their
     * arrivals delayed at random: no side ever waits for good, credits are never made or lost, and
     * credit messages do not answer each other forever (the exchange ends).
     */
    @Test
    void creditsForCreditsNeverDeadlockOrPingPong() throws Exception {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            ReassemblyHarness h = new ReassemblyHarness(64, 3, 64, 64);
            ArrayDeque<Integer> toB = new ArrayDeque<>();
            ArrayDeque<Integer> toA = new ArrayDeque<>();
            ByteBuffer region = ByteBuffer.allocateDirect(64 * 64);
            long[] posted = new long[2];
            long[] sent = new long[2];
            for (int step = 0; step < 2000; step++) {
                int action = rnd.nextInt(6);
                ReassemblyHarness.Side from = rnd.nextBoolean() ? h.a : h.b;
                ReassemblyHarness.Side to = from == h.a ? h.b : h.a;
                int i = from == h.a ? 0 : 1;
                ArrayDeque<Integer> wire = from == h.a ? toB : toA;
                switch (action) {
                    case 0 -> {
                        if (to.r.receivesInProgress() < 32
                                && to.r.postReceive(posted[1 - i], region, 0, 64, 0, 0, false)) {
                            posted[1 - i]++;
                        }
                    }
                    case 1, 2 -> {
                        if (from.r.reserveSend(8, target) == Reassembly.SMALL) {
                            wire.add(target.immData());
                            from.r.sendFinished(target.sequence(), false, MpStatus.SUCCESS, 8, 1);
                            sent[i]++;
                        }
                    }
                    case 3 -> {
                        if (!wire.isEmpty()) {
                            to.arriveSmall(wire.poll(), new byte[8]);
                        }
                    }
                    case 4 -> to.deliver();
                    default -> h.exchange();
                }
            }
            while (!toB.isEmpty()) {
                h.b.arriveSmall(toB.poll(), new byte[8]);
            }
            while (!toA.isEmpty()) {
                h.a.arriveSmall(toA.poll(), new byte[8]);
            }
            h.exchange();
            h.a.deliver();
            h.b.deliver();
            h.exchange();
            h.assertCreditsConserved();
            assertFalse(h.a.r.noticesPending() || h.b.r.noticesPending(), "seed " + seed + ": quiet at the end");
            assertEquals(sent[0], h.b.delivered.size(), "seed " + seed);
            assertEquals(sent[1], h.a.delivered.size(), "seed " + seed);
            assertTrue(sent[0] > 50 && sent[1] > 50, "seed " + seed + ": traffic both ways " + sent[0] + "/" + sent[1]);
            // nothing outstanding: each side can send again at once
            h.b.r.postReceive(-1, region, 0, 64, 0, 0, false);
            h.a.r.postReceive(-1, region, 0, 64, 0, 0, false);
            h.exchange();
            assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target), "seed " + seed);
            assertEquals(Reassembly.SMALL, h.b.r.reserveSend(8, target), "seed " + seed);
        }
    }
}
