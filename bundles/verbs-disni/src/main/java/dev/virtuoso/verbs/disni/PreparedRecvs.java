package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.util.LinkedList;
import java.util.List;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.SVCPostRecv;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSge;

/**
 * DiSNI's stateful post-receive calls of one native QP, one per receive buffer.
 *
 * <p>DiSNI 2.1's {@link SVCPostRecv} cannot be modified after preparing (its WR modifier only reads
 * the wr_id): DiSNI's idiom is one prepared call per receive buffer, re-executed whenever that
 * buffer is reposted. This cache does exactly that, keyed by the scatter list (addresses, lengths,
 * lkeys). The caller's wr_id is not part of the key: every receive is posted with the QP's fixed
 * native id and the caller's id is restored from the QP's FIFO (receives complete in order). A
 * pool of reposted buffers therefore hits the cache and allocates nothing; a buffer not seen before
 * prepares a call, evicting one of its probe neighbours when the table is full.
 *
 * <p>Not thread-safe: the owning QP serialises posts.
 */
final class PreparedRecvs {
    private static final int PROBES = 8;

    private final IbvQP qp;
    private final long nativeWrId;
    private final int mask;
    private final SVCPostRecv[] calls;
    private final int[] numSge;
    private final long[][] addr;
    private final int[][] len;
    private final int[][] lkey;
    private int clock;
    private long prepared;

    /**
     * @param qp the native QP
     * @param nativeWrId the wr_id every receive of this QP carries
     * @param maxSge scatter entries per WR
     * @param capacity minimum number of distinct buffers kept prepared
     */
    PreparedRecvs(IbvQP qp, long nativeWrId, int maxSge, int capacity) {
        this.qp = qp;
        this.nativeWrId = nativeWrId;
        int size = Integer.highestOneBit(Math.max(16, capacity * 2 - 1)) << 1;
        this.mask = size - 1;
        this.calls = new SVCPostRecv[size];
        this.numSge = new int[size];
        this.addr = new long[size][maxSge];
        this.len = new int[size][maxSge];
        this.lkey = new int[size][maxSge];
    }

    /**
     * Posts the WR's scatter list through its prepared call.
     *
     * @param wr the SPI WR (already validated)
     * @throws IOException if DiSNI or the NIC refuses
     */
    void post(IbvRecvWr wr) throws IOException {
        int n = wr.numSge();
        int h = hash(wr, n);
        int free = -1;
        for (int p = 0; p < PROBES; p++) {
            int i = (h + p) & mask;
            SVCPostRecv c = calls[i];
            if (c == null) {
                if (free < 0) {
                    free = i;
                }
            } else if (matches(i, wr, n)) {
                c.execute();
                return;
            }
        }
        int slot = free;
        if (slot < 0) {
            slot = (h + clock) & mask;
            clock = (clock + 1) % PROBES;
            calls[slot].free();
            calls[slot] = null;
        }
        SVCPostRecv c = prepare(wr, n);
        calls[slot] = c;
        numSge[slot] = n;
        for (int s = 0; s < n; s++) {
            IbvSge sge = wr.sge(s);
            addr[slot][s] = sge.addr();
            len[slot][s] = sge.length();
            lkey[slot][s] = sge.lkey();
        }
        c.execute();
    }

    /** @return how many calls were prepared so far (allocations), for tests and diagnostics */
    long preparedCount() {
        return prepared;
    }

    /** Releases every prepared call's native memory. */
    void free() {
        for (int i = 0; i < calls.length; i++) {
            if (calls[i] != null) {
                calls[i].free();
                calls[i] = null;
            }
        }
    }

    private boolean matches(int i, IbvRecvWr wr, int n) {
        if (numSge[i] != n) {
            return false;
        }
        for (int s = 0; s < n; s++) {
            IbvSge sge = wr.sge(s);
            if (addr[i][s] != sge.addr() || len[i][s] != sge.length() || lkey[i][s] != sge.lkey()) {
                return false;
            }
        }
        return true;
    }

    private static int hash(IbvRecvWr wr, int n) {
        long h = n * 0x9E3779B97F4A7C15L;
        for (int s = 0; s < n; s++) {
            IbvSge sge = wr.sge(s);
            h = (h ^ sge.addr()) * 0xBF58476D1CE4E5B9L;
            h = (h ^ (((long) sge.length() << 32) | (sge.lkey() & 0xFFFFFFFFL))) * 0x94D049BB133111EBL;
        }
        return (int) (h ^ (h >>> 31));
    }

    private SVCPostRecv prepare(IbvRecvWr wr, int n) throws IOException {
        IbvRecvWR w = new IbvRecvWR();
        w.setWr_id(nativeWrId);
        LinkedList<com.ibm.disni.verbs.IbvSge> sges = new LinkedList<>();
        for (int s = 0; s < n; s++) {
            com.ibm.disni.verbs.IbvSge g = new com.ibm.disni.verbs.IbvSge();
            g.setAddr(wr.sge(s).addr());
            g.setLength(wr.sge(s).length());
            g.setLkey(wr.sge(s).lkey());
            sges.add(g);
        }
        w.setSg_list(sges);
        w.setNum_sge(n);
        prepared++;
        return qp.postRecv(List.of(w), null);
    }
}
