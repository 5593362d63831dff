package dev.virtuoso.verbs.disni;

import java.nio.ByteBuffer;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * INLINE means "copied at post time". A send posted before the RDMA CM connection exists waits in
 * {@link PendingWork}; for an INLINE one the bytes are copied now into a small region of the QP's
 * own (one slot of {@code maxInline} bytes per send queue entry, registered on first use) and the
 * waiting copy points there. The source must lie in a region registered in the QP's PD.
 *
 * <p>Guarded by the owning QP's send lock.
 */
final class InlineStaging {
    private final DisniPd pd;
    private final int slots;
    private final int stride;
    private ByteBuffer staging;
    private DisniMr stagingMr;

    InlineStaging(DisniPd pd, int maxSendWr, int maxInline) {
        this.pd = pd;
        this.slots = maxSendWr;
        this.stride = Math.max(1, maxInline);
    }

    /**
     * @param wr an INLINE send with at least one SGE
     * @param seq its send sequence (selects the slot)
     * @return a one-SGE copy of {@code wr} reading from the staged bytes
     * @throws VerbsException if an SGE is not in a registered region
     */
    IbvSendWr stage(IbvSendWr wr, long seq) throws VerbsException {
        int slot = (int) (seq % slots);
        ByteBuffer dst = buffer().duplicate().clear().position(slot * stride);
        for (int i = 0; i < wr.numSge(); i++) {
            DisniMr src = pd.regionCovering(wr.sge(i).addr(), wr.sge(i).length());
            if (src == null) {
                throw new VerbsException(VerbsException.EINVAL, "postSend: an INLINE send posted before the "
                        + "RDMA CM connection is established must come from a registered region");
            }
            dst.put(src.view(wr.sge(i).addr(), wr.sge(i).length()));
        }
        int total = (int) wr.totalLength();
        IbvSendWr staged = new IbvSendWr(1);
        staged.wrId(wr.wrId()).opcode(wr.opcode()).sendFlags(wr.sendFlags()).numSge(1)
                .remoteAddr(wr.remoteAddr()).rkey(wr.rkey()).immData(wr.immData());
        staged.sge(0).set(stagingMr.address() + (long) slot * stride, total, stagingMr.lkey());
        return staged;
    }

    private ByteBuffer buffer() throws VerbsException {
        if (staging == null) {
            ByteBuffer b = ByteBuffer.allocateDirect(slots * stride);
            stagingMr = (DisniMr) pd.regMr(b, IbvAccess.LOCAL_WRITE);
            staging = stagingMr.buffer();
        }
        return staging;
    }

    /** Deregisters the staging region, if one was made. */
    void close() {
        if (stagingMr != null) {
            stagingMr.close();
        }
    }
}
