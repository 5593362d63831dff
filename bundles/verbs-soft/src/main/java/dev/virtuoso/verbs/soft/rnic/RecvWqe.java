package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.spi.verbs.IbvAccess;

/**
 * The engine's private copy of a receive WR taken from an RQ or SRQ, with its SGEs resolved to
 * regions once (when the first packet of the message arrives).
 */
final class RecvWqe {
    long wrId;
    int numSge;
    final long[] addr;
    final int[] len;
    final int[] lkey;
    final SoftMr[] mr;
    final long[] offset;
    /** Sum of the SGE lengths. */
    long capacity;

    RecvWqe(int maxSge) {
        addr = new long[maxSge];
        len = new int[maxSge];
        lkey = new int[maxSge];
        mr = new SoftMr[maxSge];
        offset = new long[maxSge];
    }

    /**
     * Resolves every SGE: live region of the same PD, local-write access, inside its bounds.
     *
     * @return false on a local protection error
     */
    boolean resolve(MrTable mrs, SoftPd pd) {
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            SoftMr r = mrs.byLkey(lkey[i]);
            if (r == null || r.pd != pd || (r.access & IbvAccess.LOCAL_WRITE) == 0) {
                return false;
            }
            long off = r.offsetOf(addr[i], len[i]);
            if (off < 0) {
                return false;
            }
            mr[i] = r;
            offset[i] = off;
            total += len[i];
        }
        capacity = total;
        return true;
    }

    /** Drops region references so deregistered memory can be collected. */
    void clear() {
        for (int i = 0; i < mr.length; i++) {
            mr[i] = null;
        }
        numSge = 0;
        capacity = 0;
    }
}
