package dev.virtuoso.jmh;

import java.nio.ByteBuffer;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.ReassemblyOutbox;
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
 * {@link #b}, whose control messages are handed to the other side as they are committed (one reused
 * buffer per direction), over a memory-only protection domain: registration is a synthetic address
 * over the buffer, and each SRQ records the slot wr_ids posted to it so a benchmark can complete the
 * oldest one as an RNIC would. Nothing here allocates after construction.
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
    final CountingSink sink = new CountingSink();
    private final PlacementNotice notice = new PlacementNotice();
    private final IbvWc wc = new IbvWc();

    /** @param slotBytes slot size of both sides (also their split threshold) */
    ReassemblyFixture(int slotBytes) throws VerbsException {
        ReassemblerComponent reassembler = new ReassemblerComponent();
        Wire toB = new Wire();
        Wire toA = new Wire();
        a = reassembler.newReassembly(new ReassemblyConfig("jmh-a", MAX_RECEIVES, SLOTS, slotBytes, slotBytes, SLOT_TAG), aPd,
                toB);
        b = reassembler.newReassembly(new ReassemblyConfig("jmh-b", MAX_RECEIVES, SLOTS, slotBytes, slotBytes, SLOT_TAG), bPd,
                toA);
        toB.peer = b;
        toA.peer = a;
        bSrq = bPd.srq;
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

    /**
     * Posts every placement notice {@link #a} has due and lands it in {@link #b}'s oldest posted
     * slot, as the RNIC would (payload copied into the slot, SEND_WITH_IMM completion handled).
     *
     * @return notices moved
     */
    int moveNotices() throws ReassemblyException {
        int n = 0;
        while (a.nextNotice(notice)) {
            long wrId = bSrq.take();
            int slot = (int) WrId.slot(wrId);
            bPd.mr.buffer().put(slot * b.config().slotBytes(), aPd.noticeMr.buffer(),
                    (int) (notice.localAddr() - aPd.noticeMr.address()), notice.length());
            wc.set(wrId, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, notice.length(), notice.immData(), IbvWc.WITH_IMM, 1,
                    2, 0);
            b.onCompletion(wc);
            a.noticeFinished(notice.slot(), MpStatus.SUCCESS);
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

    /** Hands each committed control message to the peer reassembly at once. */
    private static final class Wire implements ReassemblyOutbox {
        private final ByteBuffer body = ByteBuffer.allocate(4 * MIN_BODY_BYTES);
        Reassembly peer;

        @Override
        public ByteBuffer claim() {
            return body.clear();
        }

        @Override
        public void commit(ByteBuffer b) {
            b.flip();
            try {
                peer.onControl(b);
            } catch (ReassemblyException e) {
                throw new IllegalStateException("control message rejected: " + e.getMessage(), e);
            }
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
            // the placement notices' payload region is registered first, then the slots
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
