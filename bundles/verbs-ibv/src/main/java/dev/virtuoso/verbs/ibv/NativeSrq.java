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
            context.post(context.postSrqRecvFn, srq, recv, "ibv_post_srq_recv");
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
                LibIbverbs.destroy(context.lib.destroySrq, srq, "ibv_destroy_srq");
            } finally {
                arena.close();
            }
        }
    }
}
