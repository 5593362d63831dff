package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSge;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.SlotRing;

/**
 * A receive queue (a QP's RQ or an SRQ): a {@link SlotRing} of preallocated receive slots, many
 * posting threads, one consumer (the engine). A poster claims a slot, copies the WR into it and
 * publishes it; the engine takes slots in order and frees each as soon as it has copied it out.
 */
final class RecvRing {
    /** One posted receive WR, copied in by its poster. */
    private static final class Slot {
        long wrId;
        int numSge;
        final long[] addr;
        final int[] len;
        final int[] lkey;

        Slot(int maxSge) {
            addr = new long[maxSge];
            len = new int[maxSge];
            lkey = new int[maxSge];
        }
    }

    final int maxWr;
    final int maxSge;
    private final SlotRing<Slot> ring;

    RecvRing(int maxWr, int maxSge) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        ring = new SlotRing<>(Math.max(maxWr, 1), i -> new Slot(maxSge));
    }

    /** Any thread: copies and publishes one receive WR. */
    void post(IbvRecvWr wr) throws VerbsException {
        int n = wr.numSge();
        if (n > maxSge) {
            throw new VerbsException(VerbsException.EINVAL, "too many SGEs: " + n + " > " + maxSge);
        }
        long t = ring.claim();
        if (t < 0) {
            throw new VerbsException(VerbsException.ENOMEM, "receive queue full");
        }
        Slot s = ring.slot(t);
        s.wrId = wr.wrId();
        s.numSge = n;
        for (int k = 0; k < n; k++) {
            IbvSge g = wr.sge(k);
            s.addr[k] = g.addr();
            s.len[k] = g.length();
            s.lkey[k] = g.lkey();
        }
        ring.publish(t);
    }

    /** Engine: is a published WR waiting? */
    boolean available() {
        return ring.peek() >= 0;
    }

    /** Engine: copies the oldest WR into {@code into} and frees its slot; call after {@link #available}. */
    void take(RecvWqe into) {
        long t = ring.peek();
        Slot s = ring.slot(t);
        into.wrId = s.wrId;
        int n = s.numSge;
        into.numSge = n;
        for (int k = 0; k < n; k++) {
            into.addr[k] = s.addr[k];
            into.len[k] = s.len[k];
            into.lkey[k] = s.lkey[k];
        }
        ring.release(t);
    }

    /** Engine: skips the oldest WR (used when a QP is reset); call after {@link #available}. */
    void discard() {
        ring.release(ring.peek());
    }
}
