package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * Puts the congestion-avoidance policy's pacing rates on the paths' QPs ({@code IBV_QP_RATE_LIMIT})
 * when the device can pace ({@code qp_rate_limit_max > 0}); otherwise does nothing. A rate is
 * applied when it differs from the one in force by more than 1/32, so a policy's small
 * fluctuations cost no modify_qp. Engine thread only.
 */
final class PathPacer {
    private static final System.Logger LOG = System.getLogger(PathPacer.class.getName());

    private final int minKbps;
    private final int maxKbps;
    /** Rate in force per path slot, kbit/s (0: none), and the QP it is on (a repaired path has a new QP). */
    private final int[] applied;
    private final IbvQp[] appliedTo;
    private final IbvQpAttr attr = new IbvQpAttr().qpState(IbvQpState.RTS);
    private long changes;
    /** Refused rate limits; the first is logged. */
    private long failures;

    PathPacer(IbvDeviceAttr device, int slots) {
        this.minKbps = Math.max(1, device.qpRateLimitMin());
        this.maxKbps = device.qpRateLimitMax();
        this.applied = new int[slots];
        this.appliedTo = new IbvQp[slots];
    }

    /** @return whether the device paces packets */
    boolean capable() {
        return maxKbps > 0;
    }

    /**
     * Reads every usable path's rate from the policy and applies those that changed.
     *
     * @return modify_qp calls made
     */
    int update(Decomposition d, PathTable table, PathManager paths) {
        if (!capable()) {
            return 0;
        }
        int n = 0;
        int slots = Math.min(applied.length, table.pathCount()); // not the whole capacity: this runs per CQ poll
        for (int p = 0; p < slots; p++) {
            PathSlot s = paths.slot(p);
            if (s == null || s.destroyed || s.removing || !table.usable(p)) {
                continue;
            }
            if (appliedTo[p] != s.qp) {
                appliedTo[p] = s.qp; // a new QP starts unpaced
                applied[p] = 0;
            }
            int want = kbps(d.pacingBitsPerSecond(p));
            int cur = applied[p];
            if (want == cur || (want != 0 && cur != 0 && Math.abs((long) want - cur) * 32 <= cur)) {
                continue;
            }
            applied[p] = want; // also on failure: a QP that refuses is not asked again until it changes
            n++;
            try {
                s.qp.modifyQp(attr.rateLimit(want), IbvQpAttr.RATE_LIMIT);
                changes++;
            } catch (VerbsException e) {
                if (failures++ == 0) {
                    LOG.log(System.Logger.Level.WARNING, "path " + p + ": cannot set the rate limit to " + want
                            + " kbit/s: " + e.getMessage());
                }
            }
        }
        return n;
    }

    /** @return the policy's rate in the device's range, kbit/s; 0 stays 0 (no limit) */
    int kbps(long bitsPerSecond) {
        if (bitsPerSecond <= 0) {
            return 0;
        }
        long k = bitsPerSecond / 1000 + (bitsPerSecond % 1000 == 0 ? 0 : 1); // rounded up, without overflow
        return (int) Math.max(minKbps, Math.min(maxKbps, k));
    }

    /** @return rate limits applied */
    long changes() {
        return changes;
    }
}
