package dev.virtuoso.verbs.soft.rnic;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A completion queue: a preallocated single-producer single-consumer ring. The thread running the
 * device's duty cycle is the only producer ({@link #push}; the engine thread, or a poller that runs
 * the cycle itself with {@code invokeOnPoll}, one at a time under the engine's claim); the
 * application's poller is the only consumer ({@link #pollCq}). The hand-off is lock-free: entries
 * are written, then the tail is published with a release store; the poller reads the tail with an
 * acquire load and publishes its head the same way so the engine can reuse slots.
 *
 * <p>The entries are allocated as the CQ fills ({@link Entries}): a CQ costs memory for the most
 * completions it held at once, not for its size.
 *
 * <p>A CQ that overflows is broken, as on hardware: the engine moves the QP that could not complete
 * to ERR and {@link #pollCq} fails once the entries that made it are drained.
 */
final class SoftCq implements IbvCq {
    private static final int ARMED_NONE = 0;
    private static final int ARMED_ANY = 1;
    private static final int ARMED_SOLICITED = 2;

    final SoftContext context;
    final SoftCompChannel channel;
    /** The device whose engine produces the completions (null for a CQ made alone in a test). */
    private final SoftRnic device;
    /** The CQ's size: entries it holds before it overflows (a power of two). */
    private final int size;
    /** Engine: the entries it writes; grown (never shrunk) when the CQ fills beyond them. */
    private Entries produced;
    /**
     * The entries the poller reads: read after {@link #tail}, so an entry published by that tail
     * is in them (the engine publishes grown entries before any tail that needs them).
     */
    private volatile Entries entries;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();
    private final AtomicInteger armed = new AtomicInteger();
    private final AtomicInteger unackedEvents = new AtomicInteger();
    private long producerTail;
    private long consumerHead;
    private volatile boolean overflowed;
    private volatile boolean closed;

    SoftCq(SoftContext context, int cqe, SoftCompChannel channel) {
        this.context = context;
        this.channel = channel;
        this.device = context == null ? null : context.rnic;
        size = Integer.highestOneBit(Math.max(cqe, 2) - 1) << 1;
        produced = new Entries(Math.min(size, INITIAL_ENTRIES));
        entries = produced;
    }

    /**
     * The completion arrays, as large as the most completions the CQ has held at once (rounded up
     * to a power of two, at least {@link #INITIAL_ENTRIES}) rather than its size: a CQ sized for
     * every path's full send queue usually holds a few dozen. Never written again once replaced.
     */
    private static final class Entries {
        final int mask;
        final long[] wrId;
        final IbvWcStatus[] status;
        final IbvWcOpcode[] opcode;
        final int[] byteLen;
        final int[] imm;
        final int[] flags;
        final int[] qpNum;
        final int[] srcQp;

        Entries(int n) {
            mask = n - 1;
            wrId = new long[n];
            status = new IbvWcStatus[n];
            opcode = new IbvWcOpcode[n];
            byteLen = new int[n];
            imm = new int[n];
            flags = new int[n];
            qpNum = new int[n];
            srcQp = new int[n];
        }

        void copy(long index, Entries from) {
            int i = (int) index & mask;
            int j = (int) index & from.mask;
            wrId[i] = from.wrId[j];
            status[i] = from.status[j];
            opcode[i] = from.opcode[j];
            byteLen[i] = from.byteLen[j];
            imm[i] = from.imm[j];
            flags[i] = from.flags[j];
            qpNum[i] = from.qpNum[j];
            srcQp[i] = from.srcQp[j];
        }
    }

    /** Completion arrays a CQ starts with. */
    static final int INITIAL_ENTRIES = 64;

    /**
     * Engine thread: appends a completion and fires the armed event if it matches.
     *
     * @return false if the CQ is closed or overflowed (the completion is lost)
     */
    boolean push(long id, IbvWcStatus st, IbvWcOpcode op, int len, int immData, int wcFlags,
            int qp, int src, boolean solicited) {
        if (closed || overflowed) {
            return false;
        }
        long t = producerTail;
        long h = head.get();
        if (t - h >= size) {
            overflowed = true;
            signal(true);
            return false;
        }
        Entries e = produced;
        if (t - h > e.mask) {
            e = grow(e, h, t);
        }
        int i = (int) t & e.mask;
        e.wrId[i] = id;
        e.status[i] = st;
        e.opcode[i] = op;
        e.byteLen[i] = len;
        e.imm[i] = immData;
        e.flags[i] = wcFlags;
        e.qpNum[i] = qp;
        e.srcQp[i] = src;
        producerTail = t + 1;
        tail.lazySet(t + 1);
        signal(solicited || st != IbvWcStatus.SUCCESS);
        return true;
    }

    /**
     * Engine: replaces the full entries by twice as many holding the unpolled completions
     * {@code [h, t)}. The poller may still read the old ones for indexes below the tail it saw;
     * they are not written again.
     */
    private Entries grow(Entries old, long h, long t) {
        Entries e = new Entries(Math.min(size, 2 * (old.mask + 1)));
        for (long k = h; k < t; k++) {
            e.copy(k, old);
        }
        produced = e;
        entries = e;
        return e;
    }

    private void signal(boolean solicited) {
        int a = armed.get();
        if (a != ARMED_NONE && (a == ARMED_ANY || solicited) && armed.compareAndSet(a, ARMED_NONE)) {
            channel.fire(this);
        }
    }

    @Override
    public int pollCq(IbvWc[] wcs, int max) throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "CQ destroyed");
        }
        long h = consumerHead;
        long available = tail.get() - h;
        if (available == 0 && device != null && device.invoke() > 0) {
            available = tail.get() - h;
        }
        int n = (int) Math.min(available, Math.min(max, wcs.length));
        if (n <= 0) {
            if (overflowed) {
                throw new VerbsException(VerbsException.EIO, "CQ overflowed");
            }
            return 0;
        }
        Entries e = entries;
        for (int k = 0; k < n; k++) {
            int i = (int) (h + k) & e.mask;
            wcs[k].set(e.wrId[i], e.status[i], e.opcode[i], e.byteLen[i], e.imm[i], e.flags[i], e.qpNum[i],
                    e.srcQp[i], 0);
        }
        consumerHead = h + n;
        head.lazySet(h + n);
        return n;
    }

    @Override
    public void reqNotifyCq(boolean solicitedOnly) throws VerbsException {
        if (channel == null) {
            throw new VerbsException(VerbsException.EINVAL, "CQ has no completion channel");
        }
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "CQ destroyed");
        }
        armed.set(solicitedOnly ? ARMED_SOLICITED : ARMED_ANY);
        if (device != null) {
            device.handBack(); // the poller is about to block: the engine thread must run
        }
    }

    void eventDelivered() {
        unackedEvents.incrementAndGet();
    }

    @Override
    public void ackCqEvents(int count) {
        if (count > 0) {
            unackedEvents.addAndGet(-count);
        }
    }

    /** @return events handed out by the channel and not yet acknowledged */
    int unackedEvents() {
        return unackedEvents.get();
    }

    @Override
    public int capacity() {
        return size;
    }

    /** @return completion entries allocated now (grows with the most completions held at once) */
    int allocatedEntries() {
        return produced.mask + 1;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            context.forget(this);
        }
    }
}
