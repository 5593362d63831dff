package dev.virtuoso.reassembler;

import dev.virtuoso.util.WrId;

/**
 * Local sizes of one connection's reassembly.
 *
 * @param connectionId for logs
 * @param maxReceives MP_RECVs posted at once (the peer may have as many MP_SENDs waiting)
 * @param slots small-message receive slots pre-posted on the SRQ (without SRQ: on each path QP's
 *     own receive queue)
 * @param slotBytes bytes per slot: the largest message this side accepts as a small SEND
 * @param splitThreshold this side's sends shorter than this (and fitting the peer's slots) go as
 *     one small SEND
 * @param wrIdTag the tag (bits 60..63, {@link WrId}) the engine assigns to this reassembly's slot
 *     receive wr_ids; no other work on the connection's CQ may carry it
 */
public record ReassemblyConfig(String connectionId, int maxReceives, int slots, int slotBytes,
        long splitThreshold, long wrIdTag) {

    /** Upper bound of {@link #slotBytes()}. */
    public static final int MAX_SLOT_BYTES = 1 << 20;

    public ReassemblyConfig {
        if (connectionId == null || maxReceives < 1 || slots < 1 || slotBytes < 1
                || slotBytes > MAX_SLOT_BYTES || splitThreshold < 0) {
            throw new IllegalArgumentException("invalid reassembly config: " + connectionId + " maxReceives="
                    + maxReceives + " slots=" + slots + " slotBytes=" + slotBytes + " splitThreshold="
                    + splitThreshold);
        }
        WrId.checkTag(wrIdTag);
    }
}
