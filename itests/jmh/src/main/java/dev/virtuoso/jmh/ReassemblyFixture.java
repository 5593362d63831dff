package dev.virtuoso.jmh;

import java.nio.ByteBuffer;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.ReceiveCompletionSink;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.WrId;

/**
 * Two reassemblies made by the real {@link ReassemblerComponent}, sender {@link #a} and receiver
 * {@link #b}, whose control messages and notices are landed in the other side's oldest posted slot
 * as the RNIC would ({@link #moveFromA}, {@link #moveFromB}), over a memory-only protection domain:
 * registration is a synthetic address over the buffer, and each SRQ records the slot wr_ids posted
 * to it so a benchmark can complete the oldest one as an RNIC would. Nothing here allocates after
 * construction.
 */
final class ReassemblyFixture implements AutoCloseable {
    static final long REGION_ADDR = 0x7F00_0000_0000L;
    static final int REGION_RKEY = 0x5151;
    static final int MAX_RECEIVES = 1024;
    /** The slot wr_id tag, as the engine assigns it. */
    static final long SLOT_TAG = 2L << 60;
    static final int SLOTS = 64;

    final Reassembly a;
    final Reassembly b;
    final MemoryPd aPd = new MemoryPd(0x1000_0000_0000L);
    final MemoryPd bPd = new MemoryPd(0x2000_0000_0000L);
    final SlotSrq bSrq;
    final SlotSrq aSrq;
    final CountingSink sink = new CountingSink();
    private final PlacementNotice notice = new PlacementNotice();
    private final IbvWc wc = new IbvWc();

    /** @param slotBytes slot size of both sides (also their split threshold) */
    ReassemblyFixture(int slotBytes) throws VerbsException {
        ReassemblerComponent reassembler = new ReassemblerComponent();
        a = reassembler.newReassembly(new ReassemblyConfig("jmh-a", MAX_RECEIVES, SLOTS, slotBytes, slotBytes, SLOT_TAG), aPd);
        b = reassembler.newReassembly(new ReassemblyConfig("jmh-b", MAX_RECEIVES, SLOTS, slotBytes, slotBytes, SLOT_TAG), bPd);
        bSrq = bPd.srq;
        aSrq = aPd.srq;
        a.start(MAX_RECEIVES, SLOTS, slotBytes);
        b.start(MAX_RECEIVES, SLOTS, slotBytes);
    }

    /** Byte {@code i} of every message the "RNIC" lands in a slot. */
    static byte pattern(int i) {
        return (byte) (i * 31 + 7);
    }

    /** Puts {@link #pattern} into every receive slot of {@link #b} (the data a SEND would land). */
    void fillSlots() {
        ByteBuffer slab = bPd.mr.buffer();
        for (int i = 0; i < slab.capacity(); i++) {
            slab.put(i, pattern(i % b.config().slotBytes()));
        }
    }

    /** Puts {@link #pattern} back where a message of {@code a}'s overwrote {@code b}'s slot memory. */
    private void restorePattern(int at, int len) {
        ByteBuffer slab = bPd.mr.buffer();
        int slotBytes = b.config().slotBytes();
        for (int i = at; i < at + len; i++) {
            slab.put(i, pattern(i % slotBytes));
        }
    }

    /**
     * Posts every control message and placement notice {@link #a} has due and lands each in
     * {@link #b}'s oldest posted slot, as the RNIC would (payload copied into the slot,
     * SEND_WITH_IMM completion handled); each SEND completes.
     *
     * @return messages moved
     */
    int moveFromA() throws ReassemblyException {
        return move(a, aPd, b, bPd);
    }

    /** As {@link #moveFromA}, from {@link #b} (advertisements, credits) to {@link #a}. */
    int moveFromB() throws ReassemblyException {
        return move(b, bPd, a, aPd);
    }

    private int move(Reassembly from, MemoryPd fromPd, Reassembly to, MemoryPd toPd) throws ReassemblyException {
        int n = 0;
        while (from.nextNotice(notice)) {
            long wrId = toPd.srq.take();
            int slot = (int) WrId.slot(wrId);
            toPd.mr.buffer().put(slot * to.config().slotBytes(), fromPd.noticeMr.buffer(),
                    (int) (notice.localAddr() - fromPd.noticeMr.address()), notice.length());
            wc.set(wrId, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, notice.length(), notice.immData(), IbvWc.WITH_IMM, 1,
                    2, 0);
            to.onCompletion(wc);
            if (to == b) {
                restorePattern(slot * b.config().slotBytes(), notice.length());
            }
            from.noticeFinished(notice.slot(), MpStatus.SUCCESS);
            n++;
        }
        return n;
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }

    /** Counts delivered MP_RECV completions; any failure stops the benchmark. */
    static final class CountingSink implements ReceiveCompletionSink {
        long delivered;
        long bytes;

        @Override
        public void onReceiveComplete(long wrId, MpStatus status, long length, int paths, String detail) {
            if (status != MpStatus.SUCCESS) {
                throw new IllegalStateException("MP_RECV " + wrId + " failed: " + status + " " + detail);
            }
            delivered++;
            bytes += length;
        }
    }

    /** A protection domain whose registrations are synthetic addresses over the given buffers. */
    static final class MemoryPd implements IbvPd {
        private final long base;
        MemoryMr mr;
        MemoryMr noticeMr;
        SlotSrq srq;

        MemoryPd(long base) {
            this.base = base;
        }

        @Override
        public IbvMr regMr(ByteBuffer buffer, int access) {
            // the region of notices and control messages is registered first, then the slots
            if (noticeMr == null) {
                noticeMr = new MemoryMr(buffer, base + (1L << 40), access);
                return noticeMr;
            }
            mr = new MemoryMr(buffer, base, access);
            return mr;
        }

        @Override
        public IbvQp createQp(IbvQpInitAttr attr) throws VerbsException {
            throw new VerbsException(VerbsException.EOPNOTSUPP, "the reassembly benchmark needs no queue pair");
        }

        @Override
        public IbvSrq createSrq(int maxWr, int maxSge) {
            srq = new SlotSrq(maxWr);
            return srq;
        }

        @Override
        public void close() {
            // nothing registered with a device
        }
    }

    /** A memory region at a synthetic address. */
    static final class MemoryMr implements IbvMr {
        private final ByteBuffer buffer;
        private final long address;
        private final int access;

        MemoryMr(ByteBuffer buffer, long address, int access) {
            this.buffer = buffer;
            this.address = address;
            this.access = access;
        }

        @Override
        public long address() {
            return address;
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
            return access;
        }

        @Override
        public ByteBuffer buffer() {
            return buffer.duplicate().clear();
        }

        @Override
        public void close() {
            // synthetic registration: nothing to release
        }
    }

    /** A shared receive queue that keeps the posted wr_ids in FIFO order (bounded like a real one). */
    static final class SlotSrq implements IbvSrq {
        private final long[] wrIds;
        private int head;
        private int size;

        SlotSrq(int maxWr) {
            wrIds = new long[maxWr];
        }

        @Override
        public void postSrqRecv(IbvRecvWr wr) throws VerbsException {
            if (size == wrIds.length) {
                throw new VerbsException(VerbsException.ENOMEM, "SRQ full");
            }
            wrIds[(head + size) % wrIds.length] = wr.wrId();
            size++;
        }

        /** @return the wr_id of the oldest posted receive, now consumed */
        long take() {
            if (size == 0) {
                throw new IllegalStateException("no receive posted on the SRQ");
            }
            long id = wrIds[head];
            head = (head + 1) % wrIds.length;
            size--;
            return id;
        }

        int posted() {
            return size;
        }

        @Override
        public void close() {
            size = 0;
        }
    }
}
