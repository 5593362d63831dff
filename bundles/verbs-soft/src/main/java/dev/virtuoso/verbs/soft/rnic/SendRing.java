package dev.virtuoso.verbs.soft.rnic;

import java.nio.ByteBuffer;

import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvSge;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.SlotRing;

/**
 * A send queue: a {@link SlotRing} of preallocated {@link SendWqe}s, many posting threads, one
 * consumer (the engine) which walks published slots by index, keeps each until its WR completes
 * and then retires it (releases it in order).
 */
final class SendRing {
    final int maxWr;
    final int maxSge;
    final int maxInline;
    private final SlotRing<SendWqe> ring;
    /** Engine: every index below this is released. */
    private long retired;

    SendRing(int maxWr, int maxSge, int maxInline) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        int size = Integer.highestOneBit(Math.max(maxWr, 2) - 1) << 1;
        ByteBuffer inline = maxInline > 0 ? ByteBuffer.allocateDirect(size * maxInline) : null;
        ring = new SlotRing<>(Math.max(maxWr, 1),
                i -> new SendWqe(maxSge, inline == null ? null : inline.slice(i * maxInline, maxInline)));
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
        long t = ring.claim();
        if (t < 0) {
            throw new VerbsException(VerbsException.ENOMEM, "send queue full");
        }
        SendWqe w = ring.slot(t);
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
        ring.publish(t);
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
        return ring.isPublished(index);
    }

    /** Engine: the slot for absolute index {@code index}. */
    SendWqe slot(long index) {
        return ring.slot(index);
    }

    /** Engine: every WR before {@code index} has completed; their slots may be reused. */
    void retire(long index) {
        for (long r = retired; r < index; r++) {
            ring.release(r);
        }
        retired = Math.max(retired, index);
    }
}
