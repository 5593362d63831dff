package dev.virtuoso.qpmanager.internal.bootstrap;

import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;

/**
 * Local caps on the sizes a peer chooses in its handshake parameters. The other side sizes its
 * tables by them (about 57 bytes per announced MP_RECV), so they are checked against local
 * configuration before anything is allocated; a peer over a cap is refused with an ERROR naming the
 * field and the setting.
 *
 * @param maxReceives most MP_RECVs a peer may announce ({@code peerMaxReceives})
 * @param maxSlots most small-message slots a peer may announce ({@code peerMaxSlots})
 * @param maxSlotBytes largest slot a peer may announce ({@code peerMaxSlotBytes})
 * @param maxScratchBytes largest probe scratch region a peer may announce ({@code peerMaxScratchBytes})
 */
public record PeerLimits(int maxReceives, int maxSlots, int maxSlotBytes, int maxScratchBytes) {
    /** 16384 receives (about 1 MB of tables), 4096 slots, 1 MiB slots, 1 MiB scratch. */
    public static final PeerLimits DEFAULTS = new PeerLimits(16_384, 4096, 1 << 20, 1 << 20);

    public PeerLimits {
        if (maxReceives < 1 || maxReceives > HandshakeMessages.MAX_RECEIVES || maxSlots < 1
                || maxSlots > HandshakeMessages.MAX_SLOTS || maxSlotBytes < 64
                || maxSlotBytes > HandshakeMessages.MAX_SLOT_BYTES || maxScratchBytes < 0
                || maxScratchBytes > HandshakeMessages.MAX_SCRATCH_BYTES) {
            throw new IllegalArgumentException("invalid peer limits: receives=" + maxReceives + " slots=" + maxSlots
                    + " slotBytes=" + maxSlotBytes + " scratchBytes=" + maxScratchBytes);
        }
    }

    /**
     * @param p a peer's parameters
     * @return why they exceed a cap (naming the field and the setting), or {@code null} if they fit
     */
    public String violation(ReceiveParams p) {
        if (p.maxReceives() > maxReceives) {
            return over("maxReceives", p.maxReceives(), maxReceives, "peerMaxReceives");
        }
        if (p.slots() > maxSlots) {
            return over("slots", p.slots(), maxSlots, "peerMaxSlots");
        }
        if (p.slotBytes() > maxSlotBytes) {
            return over("slotBytes", p.slotBytes(), maxSlotBytes, "peerMaxSlotBytes");
        }
        if (p.scratch().length() > maxScratchBytes) {
            return over("scratch length", p.scratch().length(), maxScratchBytes, "peerMaxScratchBytes");
        }
        return null;
    }

    private static String over(String field, int value, int cap, String setting) {
        return "peer's " + field + " " + value + " exceeds the local limit " + cap + " (" + setting + ")";
    }
}
