package dev.virtuoso.itests.rxe;

import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The data phase of a case on our side, over all paths at once with one shared CQ: as requester
 * (perftest's client role: WRITE, READ or SEND, {@code iters} messages per path, at most
 * {@code depth} outstanding per path, like perftest's tx_depth), or as SEND receiver (perftest's
 * server role), checking every received message.
 */
final class Traffic {
    private static final int POLL_BATCH = 64;
    /** Idle wait between empty polls: qemu needs the host CPU more than we need low latency. */
    private static final long IDLE_PARK_NANOS = 100_000;

    private final IbvCq cq;
    private final IbvMr mr;
    private final List<QpEndpoint> paths;
    private final int size;
    private final int iters;
    private final long timeoutNanos;
    private final IbvWc[] wcs = new IbvWc[POLL_BATCH];

    Traffic(IbvCq cq, IbvMr mr, List<QpEndpoint> paths, int size, int iters, long timeoutNanos) {
        this.cq = cq;
        this.mr = mr;
        this.paths = paths;
        this.size = size;
        this.iters = iters;
        this.timeoutNanos = timeoutNanos;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWc();
        }
    }

    /**
     * Posts {@code iters} requests per path (all to the same remote range, as perftest does for
     * messages larger than half a page) and waits for every completion.
     *
     * @param opcode RDMA_WRITE, RDMA_READ or SEND
     * @param remotes the peer's record per path (address and rkey for WRITE/READ)
     * @param depth outstanding requests per path
     * @throws IOException on an error completion or a timeout
     * @throws VerbsException if posting or polling fails
     */
    void request(IbvWrOpcode opcode, List<PerftestDest> remotes, int depth) throws IOException, VerbsException {
        int n = paths.size();
        int[] posted = new int[n];
        int[] completed = new int[n];
        IbvSendWr wr = new IbvSendWr();
        long deadline = System.nanoTime() + timeoutNanos;
        int done = 0;
        while (done < n * iters) {
            for (int p = 0; p < n; p++) {
                QpEndpoint ep = paths.get(p);
                while (posted[p] < iters && posted[p] - completed[p] < depth) {
                    wr.wrId(p).opcode(opcode).sendFlags(IbvSendFlags.SIGNALED).numSge(1)
                            .remoteAddr(remotes.get(p).vaddr()).rkey(remotes.get(p).rkey());
                    wr.sge(0).set(mr.address() + ep.localOffset(), size, mr.lkey());
                    ep.qp().postSend(wr);
                    posted[p]++;
                }
            }
            int k = cq.pollCq(wcs, wcs.length);
            for (int i = 0; i < k; i++) {
                IbvWc wc = wcs[i];
                if (wc.status() != IbvWcStatus.SUCCESS) {
                    throw new IOException("path " + wc.wrId() + ": " + opcode + " completed with " + wc);
                }
                completed[(int) wc.wrId()]++;
                done++;
            }
            if (k == 0) {
                checkDeadline(deadline, "requests", done, n * iters);
                LockSupport.parkNanos(IDLE_PARK_NANOS);
            }
        }
    }

    /**
     * Receives {@code iters} SENDs per path into {@code slots} distinct buffers per path (posted
     * before the peer starts: see {@link #postReceives}), checks each one's length and that all
     * messages of a path are identical (perftest sends the same buffer every time), and reposts.
     *
     * @param slots receive buffers per path
     * @return per path, the SHA-256 of the messages received
     * @throws IOException on an error completion, a wrong length, differing messages or a timeout
     * @throws VerbsException if posting or polling fails
     */
    String[] receive(int slots) throws IOException, VerbsException {
        int n = paths.size();
        int[] received = new int[n];
        int[] posted = new int[n];
        java.util.Arrays.fill(posted, Math.min(slots, iters));
        String[] digest = new String[n];
        IbvRecvWr wr = new IbvRecvWr();
        long deadline = System.nanoTime() + timeoutNanos;
        int done = 0;
        while (done < n * iters) {
            int k = cq.pollCq(wcs, wcs.length);
            for (int i = 0; i < k; i++) {
                IbvWc wc = wcs[i];
                int p = (int) (wc.wrId() >>> 32);
                int slot = (int) wc.wrId();
                if (wc.status() != IbvWcStatus.SUCCESS || wc.opcode() != IbvWcOpcode.RECV) {
                    throw new IOException("path " + p + ": receive completed with " + wc);
                }
                if (wc.byteLen() != size) {
                    throw new IOException("path " + p + ": received " + wc.byteLen() + " bytes, want " + size);
                }
                QpEndpoint ep = paths.get(p);
                String sha = DataPattern.sha256(mr.buffer(), ep.slotOffset(slot), size);
                if (digest[p] == null) {
                    digest[p] = sha;
                } else if (!digest[p].equals(sha)) {
                    throw new IOException("path " + p + ": message " + received[p] + " differs from the first ("
                            + sha + " vs " + digest[p] + ")");
                }
                received[p]++;
                done++;
                if (posted[p] < iters) {
                    postReceive(wr, ep, p, slot);
                    posted[p]++;
                }
            }
            if (k == 0) {
                checkDeadline(deadline, "receives", done, n * iters);
                LockSupport.parkNanos(IDLE_PARK_NANOS);
            }
        }
        return digest;
    }

    /**
     * Posts the first receive buffers of one path, before perftest's last handshake lets the peer
     * send.
     *
     * @param path path index
     * @param slots receive buffers
     * @throws VerbsException if posting fails
     */
    void postReceives(int path, int slots) throws VerbsException {
        IbvRecvWr wr = new IbvRecvWr();
        for (int s = 0; s < Math.min(slots, iters); s++) {
            postReceive(wr, paths.get(path), path, s);
        }
    }

    private void postReceive(IbvRecvWr wr, QpEndpoint ep, int path, int slot) throws VerbsException {
        wr.wrId(((long) path << 32) | slot).numSge(1);
        wr.sge(0).set(mr.address() + ep.slotOffset(slot), size, mr.lkey());
        ep.qp().postRecv(wr);
    }

    private void checkDeadline(long deadline, String what, int done, int total) throws IOException {
        if (System.nanoTime() > deadline) {
            throw new IOException("timed out waiting for " + what + ": " + done + " of " + total + " completed");
        }
    }
}
