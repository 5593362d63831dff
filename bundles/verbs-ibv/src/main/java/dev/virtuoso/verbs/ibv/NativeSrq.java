package dev.virtuoso.verbs.ibv;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A shared receive queue; posting goes through {@code context->ops.post_srq_recv}. */
final class NativeSrq implements IbvSrq {
    private final NativeContext context;
    final MemorySegment srq;
    private final Arena arena = Arena.ofShared();
    private final WorkRequests.Recv recv;
    private volatile boolean closed;

    NativeSrq(NativeContext context, MemorySegment srq, int maxSge) {
        this.context = context;
        this.srq = srq;
        this.recv = new WorkRequests.Recv(arena, maxSge);
    }

    @Override
    public void postSrqRecv(IbvRecvWr wr) throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "SRQ destroyed");
        }
        synchronized (recv) {
            recv.fill(wr);
            int rc;
            try {
                rc = (int) context.lib.opsPost.invokeExact(context.postSrqRecvFn, srq, recv.wr, recv.badWr);
            } catch (Throwable t) {
                throw LibIbverbs.unexpected("ibv_post_srq_recv", t);
            }
            if (rc != 0) {
                throw LibIbverbs.failure("ibv_post_srq_recv", rc);
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        synchronized (recv) {
            try {
                int rc = (int) context.lib.destroySrq.invokeExact(srq);
                assert rc == 0 : rc;
            } catch (Throwable t) {
                throw new IllegalStateException("ibv_destroy_srq failed", t);
            } finally {
                arena.close();
            }
        }
    }
}
