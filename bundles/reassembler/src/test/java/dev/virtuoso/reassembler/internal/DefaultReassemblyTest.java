package dev.virtuoso.reassembler.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

class DefaultReassemblyTest {
    private final SendTarget target = new SendTarget();

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 31);
        }
        return b;
    }

    @Test
    void completionsFollowSendOrderWhateverTheArrivalOrder() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 1024, 1024);
        ByteBuffer region = ByteBuffer.allocateDirect(3 * 4096);
        for (int k = 0; k < 3; k++) {
            assertTrue(h.b.r.postReceive(100 + k, region, k * 4096, 4096, 0x5000 + k * 4096, 77, true));
        }
        h.exchange();
        assertEquals(Reassembly.LARGE, h.a.r.reserveSend(4000, target));
        assertEquals(0x5000, target.remoteAddr());
        assertEquals(77, target.rkey());
        long large = target.sequence();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(10, target));
        int imm1 = target.immData();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(20, target));
        int imm2 = target.immData();

        h.b.arriveSmall(imm2, bytes(20, 2));
        h.b.arriveSmall(imm1, bytes(10, 1));
        assertEquals(0, h.b.deliver(), "the large message before them is not placed yet");
        h.a.r.sendFinished(large, true, MpStatus.SUCCESS, 4000, 3);
        h.exchange();
        assertEquals(3, h.b.deliver());
        assertEquals(List.of(new Delivered(100, MpStatus.SUCCESS, 4000, 3), new Delivered(101, MpStatus.SUCCESS, 10, 1),
                new Delivered(102, MpStatus.SUCCESS, 20, 1)), h.b.delivered);
        byte[] got = new byte[20];
        region.get(2 * 4096, got);
        assertArrayEquals(bytes(20, 2), got);
        assertEquals(30, h.b.r.counters().bytesCopied());
    }

    @Test
    void sendsWaitForAdvertisementsAndSlotCredits() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 256, 1024);
        assertEquals(Reassembly.NOT_READY, h.a.r.reserveSend(10, target), "nothing posted yet");
        ByteBuffer region = ByteBuffer.allocateDirect(8 * 64);
        for (int k = 0; k < 5; k++) {
            h.b.r.postReceive(k, region, k * 64, 64, 0, 0, false);
        }
        h.exchange();
        int[] imm = new int[3];
        for (int k = 0; k < 3; k++) {
            assertEquals(Reassembly.SMALL, h.a.r.reserveSend(1, target));
            imm[k] = target.immData();
        }
        assertEquals(Reassembly.NOT_READY, h.a.r.reserveSend(1, target),
                "four slots: three credits for messages, the last one for control messages");
        h.b.arriveSmall(imm[0], new byte[] {9});
        h.exchange();
        assertEquals(Reassembly.NOT_READY, h.a.r.reserveSend(1, target), "one credit to return waits for a second");
        h.b.arriveSmall(imm[1], new byte[] {9});
        h.exchange();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(1, target), "credits returned");
        assertEquals(2, h.b.r.counters().creditsReturned());
    }

    @Test
    void tooLongMessagesFailWithoutWritingOutsideTheBuffer() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 1024, 1024);
        ByteBuffer region = ByteBuffer.allocateDirect(256);
        h.b.r.postReceive(1, region, 0, 100, 0x100, 5, true);
        h.b.r.postReceive(2, region, 100, 100, 0x200, 5, true);
        h.exchange();
        assertEquals(Reassembly.TOO_LONG, h.a.r.reserveSend(101, target), "the sender knows the buffer length");
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(50, target));
        // a peer ignoring the advertised length: the receiver checks too
        h.b.arriveSmall(target.immData(), bytes(150, 3));
        h.exchange();
        assertEquals(2, h.b.deliver());
        assertEquals(MpStatus.LOCAL_LENGTH_ERROR, h.b.delivered.get(0).status());
        assertEquals(101, h.b.delivered.get(0).length());
        assertEquals(MpStatus.LOCAL_LENGTH_ERROR, h.b.delivered.get(1).status());
        for (int i = 0; i < 256; i++) {
            assertEquals(0, region.get(i), "byte " + i + " written");
        }
    }

    @Test
    void largeMessageIntoRegionWithoutRemoteWriteFails() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 1024, 1024);
        h.b.r.postReceive(1, ByteBuffer.allocateDirect(8192), 0, 8192, 0, 0, false);
        h.exchange();
        assertEquals(Reassembly.NOT_WRITABLE, h.a.r.reserveSend(5000, target));
        h.exchange();
        h.b.deliver();
        assertEquals(MpStatus.LOCAL_PROTECTION_ERROR, h.b.delivered.get(0).status());
    }

    @Test
    void duplicatesAreDroppedAndBadSequencesRejected() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 1024, 1024);
        ByteBuffer region = ByteBuffer.allocateDirect(1024);
        h.b.r.postReceive(1, region, 0, 512, 0, 0, false);
        h.exchange();
        h.a.r.reserveSend(3, target);
        h.b.arriveSmall(target.immData(), bytes(3, 1));
        h.b.arriveSmall(target.immData(), bytes(3, 1));
        h.b.deliver();
        h.b.arriveSmall(target.immData(), bytes(3, 1));
        assertEquals(2, h.b.r.counters().duplicates());
        assertEquals(1, h.b.delivered.size());
        assertThrows(ReassemblyException.class, () -> h.b.arriveSmall(target.immData() + 5, bytes(3, 1)));
        IbvWc noImm = new IbvWc().set(h.b.srq.posted.removeFirst()[0], IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0,
                1, 1, 0);
        assertThrows(ReassemblyException.class, () -> h.b.r.onCompletion(noImm));
        assertEquals(4, h.b.srq.posted.size(), "every slot is posted again");
    }

    @Test
    void malformedControlMessagesAreRejected() {
        ReassemblyHarness.Side side = assertDoesNotThrowSide();
        assertThrows(ReassemblyException.class, () -> side.r.onControl(ByteBuffer.wrap(new byte[] {9})));
        assertThrows(ReassemblyException.class, () -> side.r.onControl(ByteBuffer.wrap(new byte[] {3, 0, 0})));
        assertThrows(ReassemblyException.class,
                () -> side.r.onControl(ByteBuffer.allocate(5).put((byte) 2).putInt(100).flip()));
        ByteBuffer outOfOrder = ByteBuffer.allocate(24).put((byte) 1).putShort((short) 1).putInt(7).putLong(0)
                .putInt(0).putInt(10).put((byte) 0).flip();
        assertThrows(ReassemblyException.class, () -> side.r.onControl(outOfOrder));
        ByteBuffer truncated = ByteBuffer.allocate(10).put((byte) 1).putShort((short) 2).flip();
        assertThrows(ReassemblyException.class, () -> side.r.onControl(truncated));
        ByteBuffer neverAdvertised = ByteBuffer.allocate(10).put((byte) 3).putInt(0).putInt(10).put((byte) 1).flip();
        assertThrows(ReassemblyException.class, () -> side.r.onControl(neverAdvertised));
    }

    private static ReassemblyHarness.Side assertDoesNotThrowSide() {
        try {
            return new ReassemblyHarness(4, 3, 64, 64).b;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void flushCompletesPostedReceivesInOrder() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 4, 1024, 1024);
        ByteBuffer region = ByteBuffer.allocateDirect(1024);
        for (int k = 0; k < 3; k++) {
            h.b.r.postReceive(k, region, k * 100, 100, 0, 0, false);
        }
        h.exchange();
        h.a.r.reserveSend(3, target);
        h.a.r.reserveSend(3, target);
        h.b.arriveSmall(target.immData(), bytes(3, 1));
        h.b.r.flush((wrId, st, len, paths, detail) -> h.b.delivered.add(new Delivered(wrId, st, len, paths)), MpStatus.FLUSHED);
        assertEquals(List.of(MpStatus.FLUSHED, MpStatus.SUCCESS, MpStatus.FLUSHED),
                h.b.delivered.stream().map(Delivered::status).toList());
        assertEquals(0, h.b.r.receivesInProgress());
        h.b.r.close();
        assertTrue(h.b.srq.closed);
        assertTrue(h.b.slabMr.closed);
    }

    @Test
    void failedSmallSendReturnsItsCreditAndFailsTheReceive() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(8, 3, 128, 64);
        ByteBuffer region = ByteBuffer.allocateDirect(256);
        for (int k = 0; k < 3; k++) {
            h.b.r.postReceive(k + 1, region, 64 * k, 64, 0, 0, false);
        }
        h.exchange();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        h.a.r.sendFinished(target.sequence(), false, MpStatus.PATH_FAILURE, 8, 1);
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        assertEquals(Reassembly.NOT_READY, h.a.r.reserveSend(8, target), "only the control messages' credit left");
        h.exchange();
        assertEquals(Reassembly.SMALL, h.a.r.reserveSend(8, target));
        h.b.deliver();
        assertEquals(MpStatus.REMOTE_OPERATION_ERROR, h.b.delivered.get(0).status());
    }
}
