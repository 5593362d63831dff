package dev.virtuoso.reassembler.internal;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * Two reassemblies whose control channels are wired to each other, with an in-memory SRQ and slot
 * memory, so the protocol can be driven message by message without a verbs provider.
 */
final class ReassemblyHarness {
    record Delivered(long wrId, MpStatus status, long length, int paths) {
    }

    /** One side: its reassembly, its SRQ posts and the completions it delivered. */
    static final class Side {
        final DefaultReassembly r;
        final MemorySrq srq = new MemorySrq();
        final MemoryMr slabMr;
        final MemoryMr noticeMr;
        final PlacementNotice notice = new PlacementNotice();
        final List<Delivered> delivered = new ArrayList<>();
        final IbvWc wc = new IbvWc();

        Side(String name, int maxReceives, int slots, int slotBytes, long splitThreshold) {
            ByteBuffer slab = ByteBuffer.allocateDirect(slots * slotBytes);
            slabMr = new MemoryMr(slab, 0x10000);
            ByteBuffer payload = ByteBuffer.allocateDirect(Notices.regionBytes(maxReceives));
            noticeMr = new MemoryMr(payload, 0x80000);
            r = new DefaultReassembly(new ReassemblyConfig(name, maxReceives, slots, slotBytes, splitThreshold, 2L << 60), srq,
                    slabMr, slab, new Notices(noticeMr, payload, maxReceives));
            try {
                r.postSrqSlots(); // as ReassemblerComponent does
            } catch (dev.virtuoso.spi.verbs.VerbsException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Lands a small SEND in the oldest posted slot, as the RNIC would, and handles its CQE. */
        void arriveSmall(int imm, byte[] payload) throws ReassemblyException {
            long[] wr = srq.posted.removeFirst();
            long addr = wr[1];
            ByteBuffer slab = slabMr.buffer();
            slab.position((int) (addr - slabMr.address()));
            slab.put(payload);
            wc.set(wr[0], IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, payload.length, imm, IbvWc.WITH_IMM, 1, 2, 0);
            r.onCompletion(wc);
        }

        /**
         * Completes the oldest posted slot as the RNIC does for an RDMA WRITE with immediate of
         * {@code len} bytes (the caller placed the bytes): the slot's memory is not touched.
         */
        void arriveDirect(int imm, int len) throws ReassemblyException {
            long[] wr = srq.posted.removeFirst();
            wc.set(wr[0], IbvWcStatus.SUCCESS, IbvWcOpcode.RECV_RDMA_WITH_IMM, len, imm, IbvWc.WITH_IMM, 1, 2, 0);
            r.onCompletion(wc);
        }

        /**
         * Posts every control message and placement notice that is due, as the engine would, and
         * lands each on {@code peer} as its RNIC would (a SEND with immediate into a slot); the SEND
         * completes successfully.
         */
        int sendNotices(Side peer) throws ReassemblyException {
            int n = 0;
            while (r.nextNotice(notice)) {
                byte[] payload = new byte[notice.length()];
                noticeMr.buffer().get((int) (notice.localAddr() - noticeMr.address()), payload);
                peer.arriveSmall(notice.immData(), payload);
                r.noticeFinished(notice.slot(), MpStatus.SUCCESS);
                n++;
            }
            return n;
        }

        int deliver() {
            return r.deliver((wrId, st, len, paths, detail) -> delivered.add(new Delivered(wrId, st, len, paths)));
        }
    }

    final Side a;
    final Side b;

    ReassemblyHarness(int maxReceives, int slots, int slotBytes, long splitThreshold) throws Exception {
        a = new Side("a", maxReceives, slots, slotBytes, splitThreshold);
        b = new Side("b", maxReceives, slots, slotBytes, splitThreshold);
        a.r.start(maxReceives, slots, slotBytes);
        b.r.start(maxReceives, slots, slotBytes);
    }

    /**
     * Checks that no slot credit was made or lost: with nothing in flight, each side's credits plus
     * what the peer holds to return are the peer's slots.
     */
    void assertCreditsConserved() {
        int slots = a.r.config().slots();
        if (a.r.credits() + b.r.creditsToReturn() != slots || b.r.credits() + a.r.creditsToReturn() != slots) {
            throw new AssertionError("credits not conserved: a holds " + a.r.credits() + " (b owes " + b.r.creditsToReturn()
                    + "), b holds " + b.r.credits() + " (a owes " + a.r.creditsToReturn() + "), " + slots + " slots");
        }
    }

    /**
     * Hands the control messages and the placement notices of both sides across until quiet
     * (failing if they never get quiet: messages answering each other).
     */
    void exchange() throws ReassemblyException {
        boolean moved = true;
        for (int round = 0; moved; round++) {
            if (round == 1000) {
                throw new AssertionError("the two sides keep sending each other messages");
            }
            moved = a.sendNotices(b) + b.sendNotices(a) > 0;
        }
    }

    /** An SRQ that records posted WRs as {wr_id, address, length}. */
    static final class MemorySrq implements IbvSrq {
        final ArrayDeque<long[]> posted = new ArrayDeque<>();
        boolean closed;

        @Override
        public void postSrqRecv(IbvRecvWr wr) {
            posted.add(new long[] {wr.wrId(), wr.sge(0).addr(), wr.sge(0).length()});
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A registered region over a direct buffer with a synthetic base address. */
    static final class MemoryMr implements IbvMr {
        private final ByteBuffer buffer;
        private final long base;
        boolean closed;

        MemoryMr(ByteBuffer buffer, long base) {
            this.buffer = buffer;
            this.base = base;
        }

        @Override
        public long address() {
            return base;
        }

        @Override
        public int length() {
            return buffer.capacity();
        }

        @Override
        public int lkey() {
            return 1;
        }

        @Override
        public int rkey() {
            return 2;
        }

        @Override
        public int access() {
            return 1;
        }

        @Override
        public ByteBuffer buffer() {
            return buffer.duplicate().clear();
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
