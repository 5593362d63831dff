package dev.virtuoso.verbs.soft.rnic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvSge;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A send queue: bounded ring of preallocated {@link SendWqe}s, many posting threads (CAS on the
 * tail, release-published per-slot sequence numbers), one consumer (the engine) which keeps each
 * slot until its WR completes and then retires it.
 */
final class SendRing {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);

    final int maxWr;
    final int maxSge;
    final int maxInline;
    private final int mask;
    private final long[] seq;
    private final SendWqe[] slots;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong retired = new AtomicLong();

    SendRing(int maxWr, int maxSge, int maxInline) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        int size = Integer.highestOneBit(Math.max(maxWr, 2) - 1) << 1;
        mask = size - 1;
        seq = new long[size];
        slots = new SendWqe[size];
        ByteBuffer inline = maxInline > 0 ? ByteBuffer.allocateDirect(size * maxInline) : null;
        for (int i = 0; i < size; i++) {
            ByteBuffer slice = null;
            if (inline != null) {
                slice = inline.slice(i * maxInline, maxInline);
            }
            slots[i] = new SendWqe(maxSge, slice);
        }
    }

    /**
     * Any thread: copies and publishes one send WR.
     *
     * @param mrs used to find the memory of inline data
     */
    void post(IbvSendWr wr, MrTable mrs) throws VerbsException {
        IbvWrOpcode op = wr.opcode();
        int n = wr.numSge();
        if (op == null) {
            throw new VerbsException(VerbsException.EINVAL, "no opcode");
        }
        if (n > maxSge) {
            throw new VerbsException(VerbsException.EINVAL, "too many SGEs: " + n + " > " + maxSge);
        }
        long total = wr.totalLength();
        boolean inline = (wr.sendFlags() & IbvSendFlags.INLINE) != 0
                && op != IbvWrOpcode.RDMA_READ;
        if (total > Integer.MAX_VALUE) {
            throw new VerbsException(VerbsException.EINVAL, "message too long: " + total);
        }
        if (inline && total > maxInline) {
            throw new VerbsException(VerbsException.EINVAL,
                    "inline data " + total + " exceeds max_inline_data " + maxInline);
        }
        for (int k = 0; k < n; k++) {
            if (wr.sge(k).length() < 0) {
                throw new VerbsException(VerbsException.EINVAL, "negative SGE length");
            }
        }
        long t;
        do {
            t = tail.get();
            if (t - retired.get() >= maxWr) {
                throw new VerbsException(VerbsException.ENOMEM, "send queue full");
            }
        } while (!tail.compareAndSet(t, t + 1));
        int i = (int) t & mask;
        SendWqe w = slots[i];
        w.wrId = wr.wrId();
        w.opcode = op;
        w.flags = wr.sendFlags();
        w.numSge = n;
        w.remoteAddr = wr.remoteAddr();
        w.rkey = wr.rkey();
        w.imm = wr.immData();
        w.length = (int) total;
        w.inline = inline;
        w.started = false;
        w.error = null;
        for (int k = 0; k < n; k++) {
            IbvSge s = wr.sge(k);
            w.addr[k] = s.addr();
            w.len[k] = s.length();
            w.lkey[k] = s.lkey();
        }
        if (inline && !copyInline(w, mrs)) {
            // the slot is claimed: publish it as a WR that fails with a local protection error
            w.inline = false;
            w.error = IbvWcStatus.LOC_PROT_ERR;
        }
        SEQ.setRelease(seq, i, t + 1);
    }

    private static boolean copyInline(SendWqe w, MrTable mrs) {
        int pos = 0;
        for (int k = 0; k < w.numSge; k++) {
            int l = w.len[k];
            if (l == 0) {
                continue;
            }
            SoftMr mr = mrs.byAddress(w.addr[k], l);
            if (mr == null) {
                return false;
            }
            w.inlineData.put(pos, mr.memory, (int) mr.offsetOf(w.addr[k], l), l);
            pos += l;
        }
        return true;
    }

    /** Engine: has the WR at absolute index {@code index} been published? */
    boolean published(long index) {
        return (long) SEQ.getAcquire(seq, (int) index & mask) == index + 1;
    }

    /** Engine: the slot for absolute index {@code index}. */
    SendWqe slot(long index) {
        return slots[(int) index & mask];
    }

    /** Engine: every WR before {@code index} has completed; their slots may be reused. */
    void retire(long index) {
        retired.lazySet(index);
    }
}
