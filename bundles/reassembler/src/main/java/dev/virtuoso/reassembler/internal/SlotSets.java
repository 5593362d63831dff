package dev.virtuoso.reassembler.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.WrId;

/**
 * Small-message slots without a shared receive queue: every path QP gets its own full set of
 * slots on its own receive queue. The peer's slot credits count messages, not QPs, so a full set
 * per QP means a small SEND finds a posted slot whichever path carries it, as with one SRQ.
 *
 * <p>A set is posted while its QP lives. When the QP fails, its remaining slots complete with
 * flush errors and are not reposted; once every slot posted on it has completed, or its QP was
 * detached, the set is reused for the next QP. Sets whose flushes never arrive (a provider that
 * drops a destroyed QP's completions) are reclaimed, oldest first, when more of them wait than
 * there are live QPs (at least {@link #MAX_LINGERING}), so memory stays within about twice the live
 * sets; a late completion of a reclaimed set carries an old generation in its wr_id and is ignored.
 *
 * <p>wr_id ({@link WrId}): the engine's tag, a generation field holding the set index (bits 48..59)
 * and the set generation (bits 32..47),
 * slot (bits 0..31). Engine thread only (the handshake thread before the engine starts).
 */
final class SlotSets {
    static final int MAX_SETS = 1 << 12;
    static final int MAX_LINGERING = 4;

    /** One QP's slots. */
    static final class SlotSet {
        final int index;
        final IbvMr mr;
        final ByteBuffer slab;
        int generation;
        IbvQp qp;
        /** The QP failed or was detached: do not repost. */
        boolean retired;
        int outstanding;
        long retiredOrder;

        SlotSet(int index, IbvMr mr, ByteBuffer slab) {
            this.index = index;
            this.mr = mr;
            this.slab = slab;
        }

        boolean free() {
            return qp == null && outstanding == 0;
        }
    }

    private final long tag;
    private final IbvPd pd;
    private final int slots;
    private final int slotBytes;
    private final List<SlotSet> sets = new ArrayList<>();
    private final IbvRecvWr wr = new IbvRecvWr(1);
    private long retirements;

    /** @param tag the wr_id tag the engine assigned to the reassembly */
    SlotSets(IbvPd pd, int slots, int slotBytes, long tag) {
        this.tag = WrId.checkTag(tag);
        this.pd = pd;
        this.slots = slots;
        this.slotBytes = slotBytes;
    }

    /**
     * Gives {@code qp} (in INIT) a set and posts it at once: before the handshake ends, since the
     * peer may send as soon as the connection is set up (a missing slot would be an RNR NAK).
     */
    void attach(IbvQp qp) throws VerbsException {
        SlotSet s = freeSet();
        s.generation = (s.generation + 1) & 0xFFFF;
        s.qp = qp;
        s.retired = false;
        s.outstanding = 0;
        postAll(s);
    }

    /** The QP is (being) destroyed: its set is no longer reposted and is reused once settled. */
    void detach(IbvQp qp) {
        for (SlotSet s : sets) {
            if (s.qp == qp) {
                s.qp = null;
                retire(s);
                reclaimLingering();
                return;
            }
        }
    }

    /**
     * @param wrId a slot completion's wr_id
     * @return its set, or {@code null} if the wr_id names no set or an older generation of one
     */
    SlotSet of(long wrId) {
        int index = WrId.generation(wrId) >>> 16 & 0xFFF;
        if (index >= sets.size()) {
            return null;
        }
        SlotSet s = sets.get(index);
        return s.generation == (WrId.generation(wrId) & 0xFFFF) ? s : null;
    }

    /** A slot of {@code s} completed with an error: its QP is in ERR, nothing more is posted on it. */
    void failed(SlotSet s) {
        if (!s.retired) {
            retire(s);
        }
    }

    /** Reposts a consumed slot on its QP, unless the set is retired. */
    void repost(SlotSet s, int slot) throws VerbsException {
        if (s.retired || s.qp == null) {
            return;
        }
        post(s, slot);
    }

    /** A slot of {@code s} completed (either way). */
    void completed(SlotSet s) {
        if (s.outstanding > 0) {
            s.outstanding--;
        }
    }

    void close() {
        for (SlotSet s : sets) {
            s.qp = null;
            s.mr.close();
        }
        sets.clear();
    }

    private void retire(SlotSet s) {
        s.retired = true;
        s.retiredOrder = ++retirements;
    }

    private void postAll(SlotSet s) throws VerbsException {
        for (int slot = 0; slot < slots; slot++) {
            post(s, slot);
        }
    }

    private void post(SlotSet s, int slot) throws VerbsException {
        wr.wrId(WrId.pack(tag, s.index << 16 | s.generation, slot)).numSge(1);
        wr.sge(0).set(s.mr.address() + (long) slot * slotBytes, slotBytes, s.mr.lkey());
        s.qp.postRecv(wr);
        s.outstanding++;
    }

    private SlotSet freeSet() throws VerbsException {
        for (SlotSet s : sets) {
            if (s.free()) {
                return s;
            }
        }
        if (sets.size() >= MAX_SETS) {
            throw new VerbsException(VerbsException.ENOMEM, "more than " + MAX_SETS + " receive slot sets");
        }
        ByteBuffer slab = ByteBuffer.allocateDirect(Math.multiplyExact(slots, slotBytes));
        IbvMr mr = pd.regMr(slab, IbvAccess.LOCAL_WRITE);
        SlotSet s = new SlotSet(sets.size(), mr, slab);
        sets.add(s);
        return s;
    }

    /** More detached sets still waiting for completions than live ones: the oldest is freed. */
    private void reclaimLingering() {
        int lingering = 0;
        int live = 0;
        SlotSet oldest = null;
        for (SlotSet s : sets) {
            if (s.qp != null) {
                live++;
            }
            if (s.qp == null && s.outstanding > 0) {
                lingering++;
                if (oldest == null || s.retiredOrder < oldest.retiredOrder) {
                    oldest = s;
                }
            }
        }
        if (lingering > Math.max(MAX_LINGERING, live)) {
            // its QP is destroyed, so nothing writes into it; a late completion has an old generation
            oldest.outstanding = 0;
        }
    }
}
