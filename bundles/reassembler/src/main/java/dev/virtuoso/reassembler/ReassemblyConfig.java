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
    /**
     * Fewest slots a reassembly (and its peer's) needs: its control messages take slot credits,
     * and the last credit is theirs.
     *
     * @since 3.0
     */
    public static final int MIN_SLOTS = 3;
    /**
     * Smallest slot a reassembly (and its peer's) needs: a control message must hold a report, a
     * credit and one advertisement.
     *
     * @since 3.0
     */
    public static final int MIN_SLOT_BYTES = 64;

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
