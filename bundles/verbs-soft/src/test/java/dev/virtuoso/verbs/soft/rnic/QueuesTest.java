package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The engine's queues on their own: receive and send rings at their capacity, SGE and inline
 * limits, the CQ ring's overflow and event arming, and the address-bytes cache.
 */
class QueuesTest {
    private static IbvRecvWr recv(long id, int sges) {
        IbvRecvWr w = new IbvRecvWr(4).wrId(id).numSge(sges);
        for (int k = 0; k < sges; k++) {
            w.sge(k).set(1000L * id + k, 10 + k, 100 + k);
        }
        return w;
    }

    @Test
    void aReceiveRingHoldsExactlyMaxWrAndCopiesEverySge() throws Exception {
        RecvRing ring = new RecvRing(3, 2);
        assertFalse(ring.available());
        ring.post(recv(1, 2));
        ring.post(recv(2, 1));
        ring.post(recv(3, 0));
        VerbsException full = assertThrows(VerbsException.class, () -> ring.post(recv(4, 1)));
        assertEquals(VerbsException.ENOMEM, full.errno());
        VerbsException sges = assertThrows(VerbsException.class, () -> ring.post(recv(5, 3)));
        assertEquals(VerbsException.EINVAL, sges.errno());
        RecvWqe w = new RecvWqe(2);
        assertTrue(ring.available());
        ring.take(w);
        assertEquals(1, w.wrId);
        assertEquals(2, w.numSge);
        assertArrayEquals(new long[] {1000, 1001}, w.addr);
        assertArrayEquals(new int[] {10, 11}, w.len);
        assertArrayEquals(new int[] {100, 101}, w.lkey);
        ring.post(recv(6, 1)); // the taken slot is free again
        ring.take(w);
        assertEquals(2, w.wrId);
        assertEquals(1, w.numSge);
        assertEquals(2000, w.addr[0]);
        ring.discard();
        assertTrue(ring.available());
        ring.take(w);
        assertEquals(6, w.wrId);
        assertFalse(ring.available());
        ring.post(recv(7, 1));
        ring.post(recv(8, 1));
        ring.post(recv(9, 1));
        assertThrows(VerbsException.class, () -> ring.post(recv(10, 1)));
        ring.discard();
        ring.post(recv(10, 1));
    }

    private static IbvSendWr send(long id, IbvWrOpcode op, int len) {
        IbvSendWr w = new IbvSendWr(2).wrId(id).opcode(op).numSge(1).remoteAddr(77).rkey(88)
                .immData(99);
        w.sge(0).set(5000 + id, len, 42);
        return w;
    }

    @Test
    void aSendRingHoldsExactlyMaxWrUntilRetired() throws Exception {
        SendRing ring = new SendRing(2, 2, 0);
        MrTable mrs = new MrTable();
        assertFalse(ring.published(0));
        ring.post(send(1, IbvWrOpcode.RDMA_WRITE, 8), mrs);
        ring.post(send(2, IbvWrOpcode.SEND, 0), mrs);
        VerbsException full = assertThrows(VerbsException.class,
                () -> ring.post(send(3, IbvWrOpcode.SEND, 1), mrs));
        assertEquals(VerbsException.ENOMEM, full.errno());
        assertTrue(ring.published(0));
        assertTrue(ring.published(1));
        assertFalse(ring.published(2));
        SendWqe w = ring.slot(0);
        assertEquals(1, w.wrId);
        assertEquals(IbvWrOpcode.RDMA_WRITE, w.opcode);
        assertEquals(8, w.length);
        assertEquals(77, w.remoteAddr);
        assertEquals(88, w.rkey);
        assertEquals(99, w.imm);
        assertEquals(1, w.numSge);
        assertEquals(5001, w.addr[0]);
        assertEquals(42, w.lkey[0]);
        assertFalse(w.inline);
        assertNull(w.error);
        assertNull(w.inlineData);
        ring.retire(1);
        ring.post(send(3, IbvWrOpcode.SEND, 1), mrs);
        assertTrue(ring.published(2));
        assertSame(w, ring.slot(2), "index 2 reuses the slot of index 0");
        assertEquals(3, w.wrId);
        assertThrows(VerbsException.class, () -> ring.post(send(4, IbvWrOpcode.SEND, 1), mrs));
    }

    @Test
    void aSendRingRefusesMalformedWrs() {
        SendRing ring = new SendRing(4, 1, 16);
        MrTable mrs = new MrTable();
        assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> ring.post(send(1, null, 1), mrs)).errno());
        IbvSendWr twoSges = send(1, IbvWrOpcode.SEND, 1).numSge(2);
        assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> ring.post(twoSges, mrs)).errno());
        IbvSendWr negative = send(1, IbvWrOpcode.SEND, -1);
        assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> ring.post(negative, mrs)).errno());
        IbvSendWr tooLongInline = send(1, IbvWrOpcode.SEND, 17).sendFlags(IbvSendFlags.INLINE);
        assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> ring.post(tooLongInline, mrs)).errno());
        assertFalse(ring.published(0), "nothing refused was published");
    }

    @Test
    void inlineDataIsCopiedAtPostTimeOrFailsTheWr() throws Exception {
        MrTable mrs = new MrTable();
        ByteBuffer mem = ByteBuffer.allocateDirect(64);
        for (int i = 0; i < 64; i++) {
            mem.put(i, (byte) i);
        }
        SoftMr mr = mrs.register(null, mem, IbvAccess.LOCAL_WRITE);
        SendRing ring = new SendRing(4, 2, 16);
        IbvSendWr w = new IbvSendWr(2).wrId(1).opcode(IbvWrOpcode.SEND).numSge(2)
                .sendFlags(IbvSendFlags.INLINE | IbvSendFlags.SIGNALED);
        w.sge(0).set(mr.address + 10, 4, 0);
        w.sge(1).set(mr.address + 30, 12, 0);
        ring.post(w, mrs); // exactly max_inline_data
        SendWqe q = ring.slot(0);
        assertTrue(q.inline);
        assertEquals(16, q.length);
        assertEquals(IbvSendFlags.INLINE | IbvSendFlags.SIGNALED, q.flags);
        for (int i = 0; i < 4; i++) {
            assertEquals(10 + i, q.inlineData.get(i));
        }
        for (int i = 0; i < 12; i++) {
            assertEquals(30 + i, q.inlineData.get(4 + i));
        }
        mem.put(10, (byte) -1);
        assertEquals(10, q.inlineData.get(0), "copied, not referenced");

        IbvSendWr empty = new IbvSendWr(2).wrId(2).opcode(IbvWrOpcode.SEND).numSge(2)
                .sendFlags(IbvSendFlags.INLINE);
        empty.sge(0).set(1, 0, 0); // zero-length SGEs name no memory
        empty.sge(1).set(mr.address, 2, 0);
        ring.post(empty, mrs);
        assertTrue(ring.slot(1).inline);
        assertEquals(2, ring.slot(1).length);
        assertEquals(0, ring.slot(1).inlineData.get(0));
        assertEquals(1, ring.slot(1).inlineData.get(1));

        IbvSendWr unregistered = new IbvSendWr(2).wrId(3).opcode(IbvWrOpcode.SEND).numSge(1)
                .sendFlags(IbvSendFlags.INLINE);
        unregistered.sge(0).set(mr.address + 64, 1, 0);
        ring.post(unregistered, mrs);
        assertTrue(ring.published(2), "claimed slot published as a failing WR");
        assertFalse(ring.slot(2).inline);
        assertEquals(IbvWcStatus.LOC_PROT_ERR, ring.slot(2).error);

        IbvSendWr read = new IbvSendWr(2).wrId(4).opcode(IbvWrOpcode.RDMA_READ).numSge(1)
                .sendFlags(IbvSendFlags.INLINE);
        read.sge(0).set(mr.address, 32, mr.lkey);
        ring.post(read, mrs);
        assertFalse(ring.slot(3).inline, "a READ has no inline data, whatever its flags say");
        assertNull(ring.slot(3).error);
    }

    @Test
    void aCqHoldsItsCapacityThenOverflowsAndFailsOnceDrained() throws Exception {
        SoftCq cq = new SoftCq(null, 3, null);
        assertEquals(4, cq.capacity(), "rounded up to a power of two");
        for (int i = 0; i < 4; i++) {
            assertTrue(cq.push(i, IbvWcStatus.SUCCESS, IbvWcOpcode.SEND, 10 + i, 20 + i, 1, 30,
                    40, false));
        }
        assertFalse(cq.push(4, IbvWcStatus.SUCCESS, IbvWcOpcode.SEND, 0, 0, 0, 0, 0, false));
        IbvWc[] wcs = {new IbvWc(), new IbvWc(), new IbvWc()};
        assertEquals(2, cq.pollCq(wcs, 2));
        assertEquals(0, wcs[0].wrId());
        assertEquals(1, wcs[1].wrId());
        assertEquals(11, wcs[1].byteLen());
        assertEquals(21, wcs[1].immData());
        assertEquals(30, wcs[1].qpNum());
        assertEquals(40, wcs[1].srcQp());
        assertEquals(1, wcs[1].wcFlags());
        assertEquals(IbvWcOpcode.SEND, wcs[1].opcode());
        assertFalse(cq.push(5, IbvWcStatus.SUCCESS, IbvWcOpcode.SEND, 0, 0, 0, 0, 0, false),
                "an overflowed CQ stays broken");
        assertEquals(2, cq.pollCq(wcs, 3));
        assertEquals(3, wcs[1].wrId());
        VerbsException e = assertThrows(VerbsException.class, () -> cq.pollCq(wcs, 3));
        assertEquals(VerbsException.EIO, e.errno());
    }

    @Test
    void aCqPollsNoMoreThanAskedOrHeld() throws Exception {
        SoftCq cq = new SoftCq(null, 8, null);
        IbvWc[] wcs = {new IbvWc(), new IbvWc()};
        assertEquals(0, cq.pollCq(wcs, 2));
        for (int i = 0; i < 8; i++) {
            assertTrue(cq.push(i, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false));
        }
        assertEquals(1, cq.pollCq(wcs, 1));
        assertEquals(2, cq.pollCq(wcs, 5), "bounded by the array");
        assertEquals(2, wcs[1].wrId());
        assertTrue(cq.push(8, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false));
        assertTrue(cq.push(9, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false));
        assertTrue(cq.push(10, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false));
        assertFalse(cq.push(11, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false));
        assertEquals(VerbsException.EINVAL,
                assertThrows(VerbsException.class, () -> cq.reqNotifyCq(false)).errno(),
                "no channel to notify");
    }

    @Test
    void anArmedCqFiresOnceForWhatItWasArmedFor() throws Exception {
        SoftCompChannel channel = new SoftCompChannel(null);
        SoftCq cq = new SoftCq(null, 8, channel);
        cq.push(1, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, true);
        assertNull(channel.getCqEvent(0, TimeUnit.MILLISECONDS), "not armed");
        cq.reqNotifyCq(true);
        cq.push(2, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false);
        assertNull(channel.getCqEvent(0, TimeUnit.MILLISECONDS), "unsolicited success");
        cq.push(3, IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false);
        assertSame(cq, channel.getCqEvent(0, TimeUnit.MILLISECONDS), "an error always fires");
        assertEquals(1, cq.unackedEvents());
        cq.push(4, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, true);
        assertNull(channel.getCqEvent(0, TimeUnit.MILLISECONDS), "disarmed by the first event");
        cq.reqNotifyCq(false);
        cq.push(5, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, false);
        assertSame(cq, channel.getCqEvent(0, TimeUnit.MILLISECONDS));
        assertEquals(2, cq.unackedEvents());
        cq.ackCqEvents(0);
        cq.ackCqEvents(-1);
        assertEquals(2, cq.unackedEvents());
        cq.ackCqEvents(2);
        assertEquals(0, cq.unackedEvents());
        cq.reqNotifyCq(true);
        cq.push(6, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 0, 0, 0, 0, 0, true);
        assertSame(cq, channel.getCqEvent(0, TimeUnit.MILLISECONDS), "solicited");
    }

    @Test
    void addressBytesAreCachedPerAddress() throws Exception {
        AddressBytes cache = new AddressBytes();
        InetAddress a = InetAddress.getByAddress(new byte[] {10, 0, 0, 1});
        byte[] first = cache.of(a);
        assertArrayEquals(new byte[] {10, 0, 0, 1}, first);
        assertSame(first, cache.of(InetAddress.getByAddress(new byte[] {10, 0, 0, 1})),
                "an equal address hits the cache");
        byte[][] seen = new byte[20][];
        for (int i = 0; i < 20; i++) {
            seen[i] = cache.of(InetAddress.getByAddress(new byte[] {10, 0, 1, (byte) i}));
            assertArrayEquals(new byte[] {10, 0, 1, (byte) i}, seen[i]);
        }
        assertSame(seen[19], cache.of(InetAddress.getByAddress(new byte[] {10, 0, 1, 19})));
        assertArrayEquals(new byte[] {10, 0, 0, 1}, cache.of(a), "evicted, then fetched again");
    }
}
