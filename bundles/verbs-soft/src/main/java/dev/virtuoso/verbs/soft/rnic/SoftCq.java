package dev.virtuoso.verbs.soft.rnic;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A completion queue: a preallocated single-producer single-consumer ring. The device's engine
 * thread is the only producer ({@link #push}); the application's poller is the only consumer
 * ({@link #pollCq}). The hand-off is lock-free: entries are written, then the tail is published
 * with a release store; the poller reads the tail with an acquire load and publishes its head the
 * same way so the engine can reuse slots.
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
    private final int mask;
    private final long[] wrId;
    private final IbvWcStatus[] status;
    private final IbvWcOpcode[] opcode;
    private final int[] byteLen;
    private final int[] imm;
    private final int[] flags;
    private final int[] qpNum;
    private final int[] srcQp;
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
        int size = Integer.highestOneBit(Math.max(cqe, 2) - 1) << 1;
        mask = size - 1;
        wrId = new long[size];
        status = new IbvWcStatus[size];
        opcode = new IbvWcOpcode[size];
        byteLen = new int[size];
        imm = new int[size];
        flags = new int[size];
        qpNum = new int[size];
        srcQp = new int[size];
    }

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
        if (t - head.get() > mask) {
            overflowed = true;
            signal(true);
            return false;
        }
        int i = (int) t & mask;
        wrId[i] = id;
        status[i] = st;
        opcode[i] = op;
        byteLen[i] = len;
        imm[i] = immData;
        flags[i] = wcFlags;
        qpNum[i] = qp;
        srcQp[i] = src;
        producerTail = t + 1;
        tail.lazySet(t + 1);
        signal(solicited || st != IbvWcStatus.SUCCESS);
        return true;
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
        int n = (int) Math.min(available, Math.min(max, wcs.length));
        if (n <= 0) {
            if (overflowed) {
                throw new VerbsException(VerbsException.EIO, "CQ overflowed");
            }
            return 0;
        }
        for (int k = 0; k < n; k++) {
            int i = (int) (h + k) & mask;
            wcs[k].set(wrId[i], status[i], opcode[i], byteLen[i], imm[i], flags[i], qpNum[i],
                    srcQp[i], 0);
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
        return mask + 1;
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
