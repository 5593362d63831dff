package dev.virtuoso.verbs.disni;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendWr;

/**
 * Work requests posted before the QP's RDMA CM connection exists. With DiSNI the native QP is
 * created by {@code rdma_create_qp} on the connection's CM id (at RTR), and it can send only once
 * the connection is established, so receives posted in INIT and sends posted right after RTS wait
 * here and are replayed, in order, onto the native QP. Copies live in WR objects allocated once,
 * on first use; the rings hold at most the QP's queue depths.
 *
 * <p>Guarded by the owning QP's monitor.
 */
final class PendingWork {
    private final int maxSge;
    private IbvSendWr[] sends;
    private long[] sendIds;
    private int sendHead;
    private int sendCount;
    private IbvRecvWr[] recvs;
    private int recvHead;
    private int recvCount;

    PendingWork(int maxSge) {
        this.maxSge = maxSge;
    }

    /** Ring of copied sends; capacity = send queue depth. */
    void addSend(IbvSendWr wr, long nativeWrId, int capacity) {
        if (sends == null) {
            sends = new IbvSendWr[capacity];
            sendIds = new long[capacity];
            for (int i = 0; i < capacity; i++) {
                sends[i] = new IbvSendWr(Math.max(1, maxSge));
            }
        }
        int i = (sendHead + sendCount) % sends.length;
        copy(wr, sends[i]);
        sendIds[i] = nativeWrId;
        sendCount++;
    }

    /** Ring of copied receives; capacity = receive queue depth. */
    void addRecv(IbvRecvWr wr, int capacity) {
        if (recvs == null) {
            recvs = new IbvRecvWr[capacity];
            for (int i = 0; i < capacity; i++) {
                recvs[i] = new IbvRecvWr(Math.max(1, maxSge));
            }
        }
        int i = (recvHead + recvCount) % recvs.length;
        IbvRecvWr dst = recvs[i];
        dst.wrId(wr.wrId()).numSge(wr.numSge());
        for (int s = 0; s < wr.numSge(); s++) {
            dst.sge(s).set(wr.sge(s).addr(), wr.sge(s).length(), wr.sge(s).lkey());
        }
        recvCount++;
    }

    int sendCount() {
        return sendCount;
    }

    int recvCount() {
        return recvCount;
    }

    /** @return the oldest pending send (valid until {@link #dropSend()}) */
    IbvSendWr peekSend() {
        return sends[sendHead];
    }

    long peekSendId() {
        return sendIds[sendHead];
    }

    void dropSend() {
        sendHead = (sendHead + 1) % sends.length;
        sendCount--;
    }

    /** @return the oldest pending receive (valid until {@link #dropRecv()}) */
    IbvRecvWr peekRecv() {
        return recvs[recvHead];
    }

    void dropRecv() {
        recvHead = (recvHead + 1) % recvs.length;
        recvCount--;
    }

    /** Forgets everything (RESET, close, or after flushing). */
    void clear() {
        sendHead = sendCount = 0;
        recvHead = recvCount = 0;
    }

    private static void copy(IbvSendWr src, IbvSendWr dst) {
        dst.wrId(src.wrId()).opcode(src.opcode()).sendFlags(src.sendFlags()).numSge(src.numSge())
                .remoteAddr(src.remoteAddr()).rkey(src.rkey()).immData(src.immData());
        for (int s = 0; s < src.numSge(); s++) {
            dst.sge(s).set(src.sge(s).addr(), src.sge(s).length(), src.sge(s).lkey());
        }
    }
}
