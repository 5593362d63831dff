package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue. {@link #pollCq} calls {@code context->ops.poll_cq} into a preallocated
 * array of {@code struct ibv_wc} and copies into the caller's objects: no allocation per call.
 */
final class NativeCq implements IbvCq {
    /** Completions fetched per poll_cq call at most. */
    static final int POLL_BATCH = 64;
    private static final long WC_SIZE = Structs.WC.byteSize();
    private static final long WR_ID = Structs.offset(Structs.WC, "wr_id");
    private static final long STATUS = Structs.offset(Structs.WC, "status");
    private static final long OPCODE = Structs.offset(Structs.WC, "opcode");
    private static final long VENDOR_ERR = Structs.offset(Structs.WC, "vendor_err");
    private static final long BYTE_LEN = Structs.offset(Structs.WC, "byte_len");
    private static final long IMM = Structs.offset(Structs.WC, "imm_data");
    private static final long QP_NUM = Structs.offset(Structs.WC, "qp_num");
    private static final long SRC_QP = Structs.offset(Structs.WC, "src_qp");
    private static final long FLAGS = Structs.offset(Structs.WC, "wc_flags");
    /** enum ibv_wc_opcode: IBV_WC_RECV = 1 << 7, IBV_WC_RECV_RDMA_WITH_IMM follows. */
    private static final int WC_RECV = 128;
    private static final int WC_RECV_RDMA_WITH_IMM = 129;
    private static final IbvWcOpcode[] SEND_SIDE = {IbvWcOpcode.SEND, IbvWcOpcode.RDMA_WRITE,
        IbvWcOpcode.RDMA_READ, IbvWcOpcode.COMP_SWAP, IbvWcOpcode.FETCH_ADD, IbvWcOpcode.BIND_MW};

    private final NativeContext context;
    final MemorySegment cq;
    private final NativeCompChannel channel;
    private final int capacity;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    /** Events handed out by the channel and not yet acknowledged: ibv_destroy_cq waits for them. */
    private final AtomicInteger unacked = new AtomicInteger();
    private volatile boolean closed;

    private NativeCq(NativeContext context, MemorySegment cq, NativeCompChannel channel) {
        this.context = context;
        this.cq = cq;
        this.channel = channel;
        this.capacity = cq.reinterpret(Structs.CQ_HEAD.byteSize()).get(JAVA_INT, Structs.offset(Structs.CQ_HEAD, "cqe"));
        this.wcs = arena.allocate(Structs.WC, POLL_BATCH);
    }

    static NativeCq create(NativeContext context, int cqe, NativeCompChannel channel) throws VerbsException {
        if (cqe < 1) {
            throw new VerbsException(VerbsException.EINVAL, "cqe must be >= 1: " + cqe);
        }
        // a local, not a conditional in the call: as an argument of the signature-polymorphic
        // invokeExact a conditional is typed Object (WrongMethodTypeException, seen on rxe)
        MemorySegment channelSegment = channel == null ? MemorySegment.NULL : channel.channel;
        MemorySegment cq = LibIbverbs.create("ibv_create_cq",
                (arena, errno) -> (MemorySegment) context.lib.createCq.invokeExact(errno, context.ctx, cqe,
                        MemorySegment.NULL, channelSegment, 0));
        NativeCq n = new NativeCq(context, cq, channel);
        if (channel != null) {
            channel.attach(n);
        }
        return n;
    }

    @Override
    public int pollCq(IbvWc[] out, int max) throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "CQ destroyed");
        }
        int want = Math.min(Math.min(max, out.length), POLL_BATCH);
        if (want <= 0) {
            return 0;
        }
        int n;
        try {
            n = (int) context.lib.opsPollCq.invokeExact(context.pollCqFn, cq, want, wcs);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected("ibv_poll_cq", t);
        }
        if (n < 0) {
            throw LibIbverbs.failure("ibv_poll_cq", n);
        }
        for (int i = 0; i < n; i++) {
            long base = i * WC_SIZE;
            int flags = wcs.get(JAVA_INT, base + FLAGS);
            out[i].set(wcs.get(JAVA_LONG, base + WR_ID), IbvWcStatus.of(wcs.get(JAVA_INT, base + STATUS)),
                    opcode(wcs.get(JAVA_INT, base + OPCODE)), wcs.get(JAVA_INT, base + BYTE_LEN),
                    // imm_data is __be32: the value as sent on the wire
                    Integer.reverseBytes(wcs.get(JAVA_INT, base + IMM)), flags & IbvWc.WITH_IMM,
                    wcs.get(JAVA_INT, base + QP_NUM), wcs.get(JAVA_INT, base + SRC_QP),
                    wcs.get(JAVA_INT, base + VENDOR_ERR));
        }
        return n;
    }

    static IbvWcOpcode opcode(int code) {
        if (code == WC_RECV) {
            return IbvWcOpcode.RECV;
        }
        if (code == WC_RECV_RDMA_WITH_IMM) {
            return IbvWcOpcode.RECV_RDMA_WITH_IMM;
        }
        return code >= 0 && code < SEND_SIDE.length ? SEND_SIDE[code] : IbvWcOpcode.SEND;
    }

    @Override
    public void reqNotifyCq(boolean solicitedOnly) throws VerbsException {
        if (channel == null) {
            throw new VerbsException(VerbsException.EINVAL, "CQ has no completion channel");
        }
        int rc;
        try {
            rc = (int) context.lib.opsReqNotifyCq.invokeExact(context.reqNotifyCqFn, cq, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected("ibv_req_notify_cq", t);
        }
        if (rc != 0) {
            throw LibIbverbs.failure("ibv_req_notify_cq", rc);
        }
    }

    /** Called by the channel for each event it returns for this CQ. */
    void eventDelivered() {
        unacked.incrementAndGet();
    }

    /** Synchronized with {@link #close}: an event is acknowledged once, never after destruction. */
    @Override
    public synchronized void ackCqEvents(int count) {
        if (count <= 0 || closed) {
            return;
        }
        unacked.addAndGet(-count);
        ack(count);
    }

    private void ack(int count) {
        try {
            context.lib.ackCqEvents.invokeExact(cq, count);
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_ack_cq_events failed", t);
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (channel == null) {
            destroy();
            return;
        }
        // under the channel's CQ lock (never held while its waiter waits): no event of this CQ can
        // be read between detaching and ibv_destroy_cq, which drops the kernel's queued events
        synchronized (channel.cqsLock) {
            channel.detach(this);
            destroy();
        }
    }

    private void destroy() {
        int outstanding = unacked.getAndSet(0);
        if (outstanding > 0) {
            // ibv_destroy_cq would wait forever for these acknowledgements
            ack(outstanding);
        }
        try {
            LibIbverbs.destroy(context.lib.destroyCq, cq, "ibv_destroy_cq");
        } finally {
            arena.close();
        }
    }
}
