package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;

import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A CQ created through DiSNI, polled with prepared {@link SVCPollCq} calls.
 *
 * <p>libdisni 2.1 refuses to create a CQ without a completion channel, so every CQ has a private
 * native channel; the SPI's {@link DisniCompChannel} waits on those. Completions are translated
 * from the native wr_id (see {@link NativeWrId}): the QP and the caller's wr_id come from the
 * binding's rings, not from DiSNI, which leaves {@code qp_num} stale in error completions.
 * Flush completions for work the NIC never saw (posted before a connection existed) are queued
 * here in software and returned before the native ones.
 *
 * <p>{@link #pollCq} allocates nothing in steady state: one prepared poll call per distinct batch
 * size, reused.
 */
final class DisniCq implements IbvCq {
    private static final System.Logger LOG = System.getLogger(DisniCq.class.getName());
    static final int MAX_BATCH = 64;

    private record Synthetic(long nativeWrId, IbvWcStatus status) {
    }

    private final DisniContext ctx;
    final IbvCQ nativeCq;
    private final IbvCompChannel nativeChannel;
    private final DisniCompChannel channel;
    private final int capacity;
    private final Object pollLock = new Object();
    private final SVCPollCq[] pollCalls = new SVCPollCq[MAX_BATCH + 1];
    private final IbvWC[][] pollWcs = new IbvWC[MAX_BATCH + 1][];
    private final SVCReqNotify[] notifyCalls = new SVCReqNotify[2];
    private final ArrayDeque<Synthetic> synthetic = new ArrayDeque<>();
    private volatile int syntheticCount;
    private volatile boolean armed;
    private final AtomicInteger unackedNative = new AtomicInteger();
    private final ReentrantLock eventLock = new ReentrantLock();
    private final LongAdder unmatched = new LongAdder();
    private volatile boolean closed;

    DisniCq(DisniContext ctx, IbvCQ nativeCq, IbvCompChannel nativeChannel, DisniCompChannel channel,
            int capacity) {
        this.ctx = ctx;
        this.nativeCq = nativeCq;
        this.nativeChannel = nativeChannel;
        this.channel = channel;
        this.capacity = capacity;
    }

    DisniContext context() {
        return ctx;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public int pollCq(IbvWc[] wcs, int max) throws VerbsException {
        int want = Math.min(max, wcs.length);
        synchronized (pollLock) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "CQ is destroyed");
            }
            if (want <= 0) {
                return 0;
            }
            // software flushes first: they stand for work posted before anything a QP's native
            // queue still holds (see DisniQp#fail), and receive completions must keep FIFO order
            int n = syntheticCount > 0 ? drainSynthetic(wcs, 0, want) : 0;
            if (n < want) {
                n += pollNative(wcs, n, want - n);
            }
            return n;
        }
    }

    private int pollNative(IbvWc[] out, int offset, int want) throws VerbsException {
        int k = Math.min(want, MAX_BATCH);
        SVCPollCq call = pollCalls[k];
        try {
            if (call == null) {
                IbvWC[] w = new IbvWC[k];
                for (int i = 0; i < k; i++) {
                    w[i] = new IbvWC();
                }
                call = nativeCq.poll(w, k);
                pollCalls[k] = call;
                pollWcs[k] = w;
            }
            call.execute();
        } catch (IOException e) {
            throw new VerbsException(VerbsException.EIO, "ibv_poll_cq failed (CQ overflow or device error): "
                    + e.getMessage(), e);
        }
        int polled = call.getPolls();
        IbvWC[] w = pollWcs[k];
        int n = 0;
        for (int i = 0; i < polled; i++) {
            IbvWC src = w[i];
            if (translate(src.getWr_id(), src.getStatus(), src, out[offset + n])) {
                n++;
            }
        }
        return n;
    }

    private int drainSynthetic(IbvWc[] out, int n, int want) {
        synchronized (synthetic) {
            while (n < want && !synthetic.isEmpty()) {
                Synthetic s = synthetic.poll();
                syntheticCount = synthetic.size();
                if (translate(s.nativeWrId(), s.status().ordinal(), null, out[n])) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Fills {@code dst} from a native (or synthetic, {@code src == null}) completion.
     *
     * @return false if the completion belongs to a QP that no longer exists (counted, skipped)
     */
    private boolean translate(long nativeWrId, int statusCode, IbvWC src, IbvWc dst) {
        int qpn = NativeWrId.qpn(nativeWrId);
        DisniQp qp = ctx.qp(qpn);
        if (qp == null) {
            unmatched.increment();
            return false;
        }
        boolean recv = NativeWrId.isRecv(nativeWrId);
        long wrId = recv ? qp.takeRecvWrId() : qp.takeSendWrId(NativeWrId.seq(nativeWrId));
        IbvWcStatus status = IbvWcStatus.of(statusCode);
        if (status == IbvWcStatus.SUCCESS && src != null) {
            int flags = src.getWc_flags() & IbvWc.WITH_IMM;
            int imm = flags != 0 ? WireOrder.fromDisni(src.getImm_data()) : 0;
            dst.set(wrId, status, Codes.wcOpcode(src.getOpcode(), recv), src.getByte_len(), imm, flags, qpn,
                    recv ? qp.remoteQpn() : 0, 0);
        } else {
            if (status != IbvWcStatus.SUCCESS) {
                qp.onErrorCompletion();
            }
            dst.set(wrId, status, recv ? IbvWcOpcode.RECV : IbvWcOpcode.SEND, 0, 0, 0, qpn, 0, 0);
        }
        return true;
    }

    /** Queues a software completion (flush of work the NIC never saw) and fires an armed CQ. */
    void addSynthetic(long nativeWrId, IbvWcStatus status) {
        synchronized (synthetic) {
            synthetic.add(new Synthetic(nativeWrId, status));
            syntheticCount = synthetic.size();
        }
        if (armed && channel != null) {
            armed = false;
            channel.signal(this);
        }
    }

    @Override
    public void reqNotifyCq(boolean solicitedOnly) throws VerbsException {
        if (channel == null) {
            throw new VerbsException(VerbsException.EINVAL, "reqNotifyCq: the CQ has no completion channel");
        }
        int i = solicitedOnly ? 1 : 0;
        synchronized (notifyCalls) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "CQ is destroyed");
            }
            try {
                if (notifyCalls[i] == null) {
                    notifyCalls[i] = nativeCq.reqNotification(solicitedOnly);
                }
                notifyCalls[i].execute();
            } catch (IOException e) {
                throw Errors.verbs("ibv_req_notify_cq", e);
            }
            armed = true;
        }
    }

    /**
     * Waits for this CQ's native event for at most {@code millis} (0 polls).
     *
     * @return true if an event arrived (it must be acknowledged)
     */
    boolean awaitNativeEvent(int millis) throws VerbsException {
        eventLock.lock();
        try {
            if (closed) {
                return false;
            }
            boolean got = nativeChannel.getCqEvent(nativeCq, millis);
            if (got) {
                unackedNative.incrementAndGet();
                armed = false;
            }
            return got;
        } catch (IOException e) {
            throw Errors.verbs("ibv_get_cq_event", e);
        } finally {
            eventLock.unlock();
        }
    }

    @Override
    public void ackCqEvents(int count) {
        // events raised for software completions need no native acknowledgement
        int acks;
        while (true) {
            int n = unackedNative.get();
            acks = Math.min(n, Math.max(0, count));
            if (unackedNative.compareAndSet(n, n - acks)) {
                break;
            }
        }
        if (acks > 0 && !closed) {
            try {
                nativeCq.ackEvents(acks);
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "ibv_ack_cq_events failed", e);
            }
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    /** @return completions skipped because their QP no longer exists */
    long unmatchedCompletions() {
        return unmatched.sum();
    }

    @Override
    public void close() {
        eventLock.lock();
        try {
            synchronized (pollLock) {
                synchronized (notifyCalls) {
                    if (closed) {
                        return;
                    }
                    closed = true;
                }
            }
            int unacked = unackedNative.getAndSet(0);
            try {
                if (unacked > 0) {
                    nativeCq.ackEvents(unacked); // ibv_destroy_cq waits for every event to be acked
                }
                for (SVCPollCq c : pollCalls) {
                    if (c != null) {
                        c.free();
                    }
                }
                for (SVCReqNotify c : notifyCalls) {
                    if (c != null) {
                        c.free();
                    }
                }
                nativeCq.destroyCQ();
                nativeChannel.destroyCompChannel();
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "destroying CQ failed", e);
            }
        } finally {
            eventLock.unlock();
        }
        if (channel != null) {
            channel.detach(this);
        }
        ctx.forget(this);
    }
}
