package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.util.WrId;

/**
 * The wr_id tags the engine assigns (bits 60..63, {@link WrId}): one per component posting on a
 * connection's CQ, so each completion goes back to the component that posted it. The only place
 * these values are defined; the decomposer and the reassembler get theirs in their configs.
 */
final class WrIdTags {
    /** Chunks of the decomposition. */
    static final long CHUNK = 1L << 60;
    /** Small-message slot receives of the reassembly. */
    static final long SLOT = 2L << 60;
    /** Probe WRITEs of the path monitor link. */
    static final long PROBE = 3L << 60;

    private WrIdTags() {
    }

    /** @return true if {@code wrId} carries {@code tag} */
    static boolean owns(long tag, long wrId) {
        return WrId.tag(wrId) == tag;
    }
}
