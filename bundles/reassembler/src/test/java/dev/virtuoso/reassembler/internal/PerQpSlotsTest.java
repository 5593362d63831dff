package dev.virtuoso.reassembler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.internal.ReassemblyHarness.MemoryMr;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * The reassembly on a device without SRQ ({@code max_srq = 0}): every path QP gets a full slot set
 * on its own receive queue, a consumed slot goes back to the QP that consumed it, a failed QP's
 * slots are not reposted, and its set is reused after detach while its late completions are ignored.
 */
class PerQpSlotsTest {
    private static final int SLOTS = 4;
    private static final int SLOT_BYTES = 256;

    /** A QP whose receive queue records posted WRs as {wr_id, address}. */
    private static final class Rq {
        final ArrayDeque<long[]> posted = new ArrayDeque<>();
        final IbvQp qp = (IbvQp) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {IbvQp.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "postRecv" -> {
                        IbvRecvWr wr = (IbvRecvWr) args[0];
                        posted.add(new long[] {wr.wrId(), wr.sge(0).addr()});
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> null;
                });
    }

    private static final int MAX_RECEIVES = 16;
    private final List<MemoryMr> regions = new ArrayList<>();
    private MemoryMr noticeRegion;
    private final IbvPd pd = (IbvPd) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {IbvPd.class},
            (proxy, m, args) -> {
                if (m.getName().equals("regMr")) {
                    ByteBuffer b = (ByteBuffer) args[0];
                    if (b.capacity() == Notices.regionBytes(MAX_RECEIVES)) {
                        // the placement notices' payload region, not a slot set
                        noticeRegion = new MemoryMr(b, 0x10000L);
                        return noticeRegion;
                    }
                    MemoryMr mr = new MemoryMr(b, 0x100000L * (regions.size() + 1));
                    regions.add(mr);
                    return mr;
                }
                throw new UnsupportedOperationException(m.getName());
            });
    private final IbvWc wc = new IbvWc();
    private final PlacementNotice message = new PlacementNotice();

    /** Posts the control messages that are due (the receives' advertisements), each completing at once. */
    private void advertise(Reassembly r) {
        while (r.nextNotice(message)) {
            r.noticeFinished(message.slot(), MpStatus.SUCCESS);
        }
    }

    private Reassembly newReassembly() throws Exception {
        return new ReassemblerComponent().newReassembly(new ReassemblyConfig("t", MAX_RECEIVES, SLOTS, SLOT_BYTES, 128, 2L << 60), pd,
                new IbvDeviceAttr().maxSrq(0));
    }

    @Test
    void withAnSrqTheComponentPostsEverySlotWhenItCreatesTheReassembly() throws Exception {
        ReassemblyHarness.MemorySrq srq = new ReassemblyHarness.MemorySrq();
        IbvPd srqPd = (IbvPd) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {IbvPd.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "regMr" -> new MemoryMr((ByteBuffer) args[0], 0x100000L);
                    case "createSrq" -> srq;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        Reassembly r = new ReassemblerComponent().newReassembly(new ReassemblyConfig("t", 16, SLOTS, SLOT_BYTES, 128,
                2L << 60), srqPd, new IbvDeviceAttr().maxSrq(1));
        // before the handshake ends (start): the peer's first small SEND must never meet an empty SRQ
        assertEquals(SLOTS, srq.posted.size(), "every slot posted at creation");
        r.start(16, SLOTS, SLOT_BYTES);
        assertEquals(SLOTS, srq.posted.size(), "start posts nothing more");
        r.close();
        assertTrue(srq.closed);
    }

    @Test
    void everyQpGetsAFullSetOfItsOwnAndConsumedSlotsGoBackToIt() throws Exception {
        Reassembly r = newReassembly();
        assertNull(r.srq());
        IbvQpInitAttr attr = new IbvQpInitAttr().maxRecvWr(1);
        r.configureQp(attr);
        assertNull(attr.srq());
        assertEquals(SLOTS, attr.maxRecvWr());
        Rq q1 = new Rq();
        Rq q2 = new Rq();
        r.attachQp(q1.qp);
        r.attachQp(q2.qp);
        // posted at attach (INIT), before the handshake ends: the peer's first SEND must find them (no RNR)
        assertEquals(SLOTS, q1.posted.size(), "posted when attached, before start");
        assertEquals(SLOTS, q2.posted.size(), "posted when attached, before start");
        r.start(16, SLOTS, SLOT_BYTES);
        assertEquals(SLOTS, q1.posted.size(), "start posts nothing more");
        assertEquals(SLOTS, q2.posted.size(), "start posts nothing more");
        assertTrue(q1.posted.peekFirst()[1] != q2.posted.peekFirst()[1], "each QP has its own slot memory");
        Rq q3 = new Rq();
        r.attachQp(q3.qp);
        assertEquals(SLOTS, q3.posted.size(), "a QP attached after start is posted at once");

        // a small message (sequence 0) lands in q2's first slot
        ByteBuffer dst = ByteBuffer.allocateDirect(64);
        assertTrue(r.postReceive(7, dst, 0, 64, 0x9000, 5, true));
        advertise(r);
        long[] slot = q2.posted.removeFirst();
        ByteBuffer slab = regionAt(slot[1]);
        slab.put((int) (slot[1] - regionBase(slot[1])), new byte[] {1, 2, 3});
        r.onCompletion(wc.set(slot[0], IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 3, 0, IbvWc.WITH_IMM, 2, 9, 0));
        long[] delivered = new long[2];
        r.deliver((wrId, status, len, paths, detail) -> {
            assertEquals(MpStatus.SUCCESS, status);
            delivered[0] = wrId;
            delivered[1] = len;
        });
        assertEquals(7, delivered[0]);
        assertEquals(3, delivered[1]);
        assertEquals(2, dst.get(1));
        assertEquals(SLOTS, q2.posted.size(), "the slot went back to the QP that consumed it");
        assertEquals(slot[0], q2.posted.peekLast()[0]);
        assertEquals(SLOTS, q1.posted.size());
        r.close();
        assertTrue(regions.stream().allMatch(m -> m.closed), "slot memory released on close");
        assertTrue(noticeRegion.closed, "notice memory released on close");
    }

    @Test
    void aSmallMessageWrittenDirectlyConsumesASlotOfItsQpAndIsNotCopied() throws Exception {
        Reassembly r = newReassembly();
        Rq q1 = new Rq();
        Rq q2 = new Rq();
        r.attachQp(q1.qp);
        r.attachQp(q2.qp);
        r.start(16, SLOTS, SLOT_BYTES);
        ByteBuffer dst = ByteBuffer.allocateDirect(64);
        assertTrue(r.postReceive(7, dst, 0, 64, 0x9000, 5, true));
        advertise(r);
        // the peer's WRITE with immediate placed 3 bytes in dst and consumed q1's first slot
        dst.put(0, new byte[] {4, 5, 6});
        long[] slot = q1.posted.removeFirst();
        ByteBuffer slab = regionAt(slot[1]);
        slab.put((int) (slot[1] - regionBase(slot[1])), new byte[] {9, 9, 9});
        r.onCompletion(wc.set(slot[0], IbvWcStatus.SUCCESS, IbvWcOpcode.RECV_RDMA_WITH_IMM, 3, 0, IbvWc.WITH_IMM, 1,
                9, 0));
        long[] delivered = new long[2];
        assertEquals(1, r.deliver((wrId, status, len, paths, detail) -> {
            assertEquals(MpStatus.SUCCESS, status);
            delivered[0] = wrId;
            delivered[1] = len;
        }));
        assertEquals(7, delivered[0]);
        assertEquals(3, delivered[1]);
        assertEquals(5, dst.get(1), "the slot's bytes are not message data");
        assertEquals(1, r.counters().smallZeroCopy());
        assertEquals(0, r.counters().bytesCopied());
        assertEquals(SLOTS, q1.posted.size(), "the slot went back to the QP that consumed it");
        assertEquals(slot[0], q1.posted.peekLast()[0]);
        assertEquals(SLOTS, q2.posted.size());
        r.close();
    }

    @Test
    void aFailedQpsSlotsAreNotRepostedAndItsSetServesTheReplacement() throws Exception {
        Reassembly r = newReassembly();
        r.start(16, SLOTS, SLOT_BYTES);
        Rq failed = new Rq();
        Rq other = new Rq();
        r.attachQp(failed.qp);
        r.attachQp(other.qp);
        List<long[]> flushed = new ArrayList<>(failed.posted);
        failed.posted.clear();
        for (long[] w : flushed.subList(0, SLOTS - 1)) {
            r.onCompletion(wc.set(w[0], IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0, 0, 1, 0, 0));
        }
        assertEquals(0, failed.posted.size(), "flushed slots are not reposted on a QP in ERR");
        assertEquals(SLOTS, other.posted.size());

        // the QP is destroyed before its last flush arrives; its replacement gets the same memory
        r.detachQp(failed.qp);
        Rq fresh = new Rq();
        r.attachQp(fresh.qp);
        assertEquals(3, regions.size(), "one slot set is still owed a completion, so a new one is made");
        r.onCompletion(wc.set(flushed.get(SLOTS - 1)[0], IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0, 0, 1, 0,
                0));
        r.detachQp(fresh.qp);
        Rq next = new Rq();
        r.attachQp(next.qp);
        assertEquals(3, regions.size(), "settled sets are reused");
        long errorsBefore = r.counters().slotErrors();
        // a completion carrying an old generation of a reused set is ignored, not reposted
        r.onCompletion(wc.set(flushed.get(0)[0], IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, 3, 0, IbvWc.WITH_IMM, 1, 0,
                0));
        assertEquals(errorsBefore + 1, r.counters().slotErrors());
        assertEquals(SLOTS, next.posted.size());
        assertEquals(SLOTS, other.posted.size());
        r.close();
    }

    @Test
    void setsWhoseFlushesNeverComeAreReclaimed() throws Exception {
        Reassembly r = newReassembly();
        r.start(16, SLOTS, SLOT_BYTES);
        for (int i = 0; i < 20; i++) {
            Rq q = new Rq();
            r.attachQp(q.qp);
            // destroyed without its flushes ever reaching the CQ
            r.detachQp(q.qp);
        }
        assertTrue(regions.size() <= SlotSets.MAX_LINGERING + 2, regions.size() + " slot sets for one live QP");
        r.close();
    }

    private ByteBuffer regionAt(long addr) {
        for (MemoryMr m : regions) {
            if (addr >= m.address() && addr < m.address() + m.length()) {
                return m.buffer();
            }
        }
        throw new AssertionError("no region at " + Long.toHexString(addr));
    }

    private long regionBase(long addr) {
        for (MemoryMr m : regions) {
            if (addr >= m.address() && addr < m.address() + m.length()) {
                return m.address();
            }
        }
        throw new AssertionError();
    }
}
