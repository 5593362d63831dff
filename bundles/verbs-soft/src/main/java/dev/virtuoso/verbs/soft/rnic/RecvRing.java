package dev.virtuoso.verbs.soft.rnic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSge;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A receive queue (a QP's RQ or an SRQ): a bounded ring, many posting threads, one consumer (the
 * engine). A poster claims a slot by CAS on the tail, copies the WR into preallocated arrays and
 * publishes the slot with a release store of its sequence number; the engine takes slots in order
 * and frees each as soon as it has copied it out.
 */
final class RecvRing {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);

    final int maxWr;
    final int maxSge;
    private final int mask;
    private final long[] seq;
    private final long[] wrId;
    private final int[] numSge;
    private final long[] addr;
    private final int[] len;
    private final int[] lkey;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();
    private long consumer;

    RecvRing(int maxWr, int maxSge) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        int size = Integer.highestOneBit(Math.max(maxWr, 2) - 1) << 1;
        mask = size - 1;
        seq = new long[size];
        wrId = new long[size];
        numSge = new int[size];
        addr = new long[size * maxSge];
        len = new int[size * maxSge];
        lkey = new int[size * maxSge];
    }

    /** Any thread: copies and publishes one receive WR. */
    void post(IbvRecvWr wr) throws VerbsException {
        int n = wr.numSge();
        if (n > maxSge) {
            throw new VerbsException(VerbsException.EINVAL, "too many SGEs: " + n + " > " + maxSge);
        }
        long t;
        do {
            t = tail.get();
            if (t - head.get() >= maxWr) {
                throw new VerbsException(VerbsException.ENOMEM, "receive queue full");
            }
        } while (!tail.compareAndSet(t, t + 1));
        int i = (int) t & mask;
        wrId[i] = wr.wrId();
        numSge[i] = n;
        int base = i * maxSge;
        for (int k = 0; k < n; k++) {
            IbvSge s = wr.sge(k);
            addr[base + k] = s.addr();
            len[base + k] = s.length();
            lkey[base + k] = s.lkey();
        }
        SEQ.setRelease(seq, i, t + 1);
    }

    /** Engine: is a published WR waiting? */
    boolean available() {
        long c = consumer;
        return (long) SEQ.getAcquire(seq, (int) c & mask) == c + 1;
    }

    /** Engine: copies the oldest WR into {@code into} and frees its slot; call after {@link #available}. */
    void take(RecvWqe into) {
        long c = consumer;
        int i = (int) c & mask;
        into.wrId = wrId[i];
        int n = numSge[i];
        into.numSge = n;
        int base = i * maxSge;
        for (int k = 0; k < n; k++) {
            into.addr[k] = addr[base + k];
            into.len[k] = len[base + k];
            into.lkey[k] = lkey[base + k];
        }
        consumer = c + 1;
        head.lazySet(c + 1);
    }

    /** Engine: skips the oldest WR (used when a QP is reset). */
    void discard() {
        consumer++;
        head.lazySet(consumer);
    }
}
