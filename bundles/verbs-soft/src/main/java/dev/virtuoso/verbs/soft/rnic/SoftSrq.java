package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.VerbsException;

/** A shared receive queue: one {@link RecvRing} consumed FIFO by every QP attached to it. */
final class SoftSrq implements IbvSrq {
    final SoftPd pd;
    final RecvRing ring;
    private volatile boolean closed;

    SoftSrq(SoftPd pd, int maxWr, int maxSge) {
        this.pd = pd;
        this.ring = new RecvRing(maxWr, maxSge);
    }

    @Override
    public void postSrqRecv(IbvRecvWr wr) throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "SRQ destroyed");
        }
        ring.post(wr);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            pd.forget(this);
        }
    }
}
