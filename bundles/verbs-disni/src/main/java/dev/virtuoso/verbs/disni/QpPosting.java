package dev.virtuoso.verbs.disni;

import java.io.IOException;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;

import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A DiSNI QP's work queues: posting through DiSNI's stateful verb calls once the native QP exists
 * ({@link PreparedSends}, {@link PreparedRecvs}), the work that waits for the RDMA CM connection
 * ({@link PendingWork}: receives from INIT, sends after RTS until ESTABLISHED), the caller's wr_ids
 * ({@link WrRings}) and software flushes.
 *
 * <p>Locks, always in this order: the owning QP's monitor (slow paths and connection changes hold
 * it), then the send lock, then the receive lock. The fast paths take only the send or receive
 * lock: one uncontended monitor per post, since DiSNI's prepared calls are shared native WR buffers.
 */
final class QpPosting {
    private final DisniQp qp;
    private final int qpn;
    private final DisniCq sendCq;
    private final DisniCq recvCq;
    private final int maxSendWr;
    private final int maxRecvWr;
    private final int maxSendSge;
    private final int maxRecvSge;
    private final int maxInline;
    private final boolean sigAll;
    private final WrRings rings;
    private final PendingWork pending;
    private final InlineStaging staging;
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();

    private volatile IbvQP nativeQp;
    private volatile boolean established;
    private PreparedSends sends;
    private PreparedRecvs recvs;

    QpPosting(DisniQp qp, DisniCq sendCq, DisniCq recvCq, IbvQpInitAttr a) {
        this.qp = qp;
        this.qpn = qp.qpn;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.maxSendWr = a.maxSendWr();
        this.maxRecvWr = a.maxRecvWr();
        this.maxSendSge = a.maxSendSge();
        this.maxRecvSge = a.maxRecvSge();
        this.maxInline = a.maxInlineData();
        this.sigAll = a.sqSigAll();
        this.rings = new WrRings(maxSendWr, maxRecvWr);
        this.pending = new PendingWork(Math.max(maxSendSge, maxRecvSge));
        this.staging = new InlineStaging(qp.pd, maxSendWr, maxInline);
    }

    // ---------------------------------------------------------------- sends

    void validate(IbvSendWr wr) throws VerbsException {
        if (wr == null || wr.opcode() == null) {
            throw new VerbsException(VerbsException.EINVAL, "postSend: WR and opcode are required");
        }
        if (wr.numSge() > maxSendSge) {
            throw new VerbsException(VerbsException.EINVAL, "postSend: " + wr.numSge() + " SGEs > maxSendSge "
                    + maxSendSge);
        }
        if ((wr.sendFlags() & IbvSendFlags.INLINE) != 0 && wr.totalLength() > maxInline) {
            throw new VerbsException(VerbsException.EINVAL, "postSend: INLINE payload " + wr.totalLength()
                    + " > maxInlineData " + maxInline);
        }
    }

    /**
     * Fast path: posts on the established connection.
     *
     * @return false if the connection is not established (the caller takes {@link #postSendSlow})
     */
    boolean postSendEstablished(IbvSendWr wr) throws VerbsException {
        if (established) {
            synchronized (sendLock) {
                if (established && nativeQp != null) {
                    postSendNative(wr, rings.reserveSend(wr.wrId()));
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Slow path, the QP's monitor held: posts if the connection was established meanwhile, flushes
     * in ERR, on a failed connection leaves the send outstanding until its retransmit budget runs
     * out, and otherwise keeps it until the connection is established.
     */
    void postSendSlow(IbvSendWr wr, QpConnection connection) throws VerbsException {
        synchronized (sendLock) {
            if (qp.isClosed()) {
                throw new VerbsException(VerbsException.EINVAL, "QP " + qpn + " is destroyed");
            }
            long seq = rings.reserveSend(wr.wrId());
            if (established && nativeQp != null) {
                postSendNative(wr, seq);
            } else if (qp.state() == IbvQpState.ERR) {
                sendCq.addSynthetic(NativeWrId.send(qpn, seq), IbvWcStatus.WR_FLUSH_ERR);
            } else if (connection.failed()) {
                connection.armDeadline();
            } else {
                try {
                    park(wr, seq);
                } catch (VerbsException e) {
                    rings.unreserveSend(seq);
                    throw e;
                }
            }
        }
    }

    /** Caller holds sendLock; the native QP is established. */
    private void postSendNative(IbvSendWr wr, long seq) throws VerbsException {
        int flags = wr.sendFlags() | (sigAll ? IbvSendFlags.SIGNALED : 0);
        try {
            sends.post(wr, NativeWrId.send(qpn, seq), Codes.sendFlags(flags));
        } catch (IOException e) {
            rings.unreserveSend(seq);
            throw Errors.verbs("ibv_post_send", e);
        }
    }

    /** Keeps a send until the connection is established; INLINE payloads are copied now. */
    private void park(IbvSendWr wr, long seq) throws VerbsException {
        if ((wr.sendFlags() & IbvSendFlags.INLINE) == 0 || wr.numSge() == 0) {
            pending.addSend(wr, NativeWrId.send(qpn, seq), maxSendWr);
        } else {
            pending.addSend(staging.stage(wr, seq), NativeWrId.send(qpn, seq), maxSendWr);
        }
    }

    // ---------------------------------------------------------------- receives

    void validate(IbvRecvWr wr) throws VerbsException {
        if (wr == null || wr.numSge() > maxRecvSge) {
            throw new VerbsException(VerbsException.EINVAL, "postRecv: null WR or more than "
                    + maxRecvSge + " SGEs");
        }
    }

    /**
     * Fast path: posts on the native QP.
     *
     * @return false if there is none yet (the caller takes {@link #postRecvSlow})
     */
    boolean postRecvNativeQp(IbvRecvWr wr) throws VerbsException {
        if (nativeQp != null) {
            synchronized (recvLock) {
                if (nativeQp != null) {
                    rings.reserveRecv(wr.wrId());
                    postRecvNative(wr);
                    return true;
                }
            }
        }
        return false;
    }

    /** Slow path, the QP's monitor held. */
    void postRecvSlow(IbvRecvWr wr, QpConnection connection) throws VerbsException {
        synchronized (recvLock) {
            if (qp.isClosed() || qp.state() == IbvQpState.RESET) {
                throw new VerbsException(VerbsException.EINVAL, "postRecv: QP " + qpn + " is "
                        + (qp.isClosed() ? "destroyed" : "in RESET"));
            }
            rings.reserveRecv(wr.wrId());
            if (nativeQp != null) {
                postRecvNative(wr);
            } else if (qp.state() == IbvQpState.ERR) {
                recvCq.addSynthetic(NativeWrId.recv(qpn), IbvWcStatus.WR_FLUSH_ERR);
            } else if (!connection.failed()) {
                pending.addRecv(wr, maxRecvWr);
            }
        }
    }

    /** Caller holds recvLock and has reserved the FIFO slot. */
    private void postRecvNative(IbvRecvWr wr) throws VerbsException {
        try {
            recvs.post(wr);
        } catch (IOException e) {
            rings.unreserveRecv();
            throw Errors.verbs("ibv_post_recv", e);
        }
    }

    // ---------------------------------------------------------------- completions (poller)

    long takeSendWrId(long seq) {
        return rings.takeSend(seq);
    }

    long takeRecvWrId() {
        return rings.takeRecv();
    }

    // ---------------------------------------------------------------- native QP (QP's monitor held)

    /** @return what {@code rdma_create_qp} needs for this QP */
    IbvQPInitAttr nativeInitAttr() {
        IbvQPInitAttr ia = new IbvQPInitAttr();
        ia.setSend_cq(sendCq.nativeCq);
        ia.setRecv_cq(recvCq.nativeCq);
        ia.setQp_type(IbvQP.IBV_QPT_RC);
        ia.cap().setMax_send_wr(maxSendWr);
        ia.cap().setMax_recv_wr(maxRecvWr);
        ia.cap().setMax_send_sge(maxSendSge);
        ia.cap().setMax_recv_sge(maxRecvSge);
        ia.cap().setMax_inline_data(maxInline);
        return ia;
    }

    /** The native QP exists: prepare the calls and replay the receives posted so far. */
    void attach(IbvQP q) throws IOException {
        synchronized (sendLock) {
            synchronized (recvLock) {
                sends = new PreparedSends(q, maxSendSge);
                recvs = new PreparedRecvs(q, NativeWrId.recv(qpn), maxRecvSge, maxRecvWr);
                nativeQp = q;
                while (pending.recvCount() > 0) {
                    recvs.post(pending.peekRecv());
                    pending.dropRecv();
                }
            }
        }
    }

    /** ESTABLISHED: replays the sends posted since RTS, in order, then opens the fast path. */
    void establish() throws IOException {
        synchronized (sendLock) {
            while (pending.sendCount() > 0) {
                IbvSendWr w = pending.peekSend();
                int flags = w.sendFlags() | (sigAll ? IbvSendFlags.SIGNALED : 0);
                sends.post(w, pending.peekSendId(), Codes.sendFlags(flags));
                pending.dropSend();
            }
            established = true;
        }
    }

    boolean hasNativeQp() {
        return nativeQp != null;
    }

    boolean isEstablished() {
        return established;
    }

    boolean sendsOutstanding() {
        return rings.sendPosted() != rings.sendDone();
    }

    /**
     * Closes the fast paths and frees the prepared calls.
     *
     * @return the native QP there was, or null
     */
    IbvQP detach() {
        synchronized (sendLock) {
            synchronized (recvLock) {
                IbvQP q = nativeQp;
                nativeQp = null;
                established = false;
                if (sends != null) {
                    sends.free();
                    sends = null;
                }
                if (recvs != null) {
                    recvs.free();
                    recvs = null;
                }
                return q;
            }
        }
    }

    /**
     * Software flush of every outstanding WR, in posting order.
     *
     * @param firstSendTimedOut the oldest send completes with RETRY_EXC_ERR (a peer that never
     *     answered) instead of WR_FLUSH_ERR
     */
    void flushOutstanding(boolean firstSendTimedOut) {
        synchronized (sendLock) {
            synchronized (recvLock) {
                boolean first = firstSendTimedOut;
                for (long s = rings.sendDone(); s < rings.sendPosted(); s++) {
                    sendCq.addSynthetic(NativeWrId.send(qpn, s),
                            first ? IbvWcStatus.RETRY_EXC_ERR : IbvWcStatus.WR_FLUSH_ERR);
                    first = false;
                }
                for (long r = rings.recvOutstanding(); r > 0; r--) {
                    recvCq.addSynthetic(NativeWrId.recv(qpn), IbvWcStatus.WR_FLUSH_ERR);
                }
                pending.clear();
            }
        }
    }

    /** Drops the work waiting for a connection; posted receives stay outstanding in the FIFO. */
    void dropWaiting() {
        synchronized (sendLock) {
            synchronized (recvLock) {
                pending.clear();
            }
        }
    }

    /** RESET: forgets everything posted. */
    void discard() {
        synchronized (sendLock) {
            synchronized (recvLock) {
                pending.clear();
                rings.discard();
            }
        }
    }

    /** @return prepared-call allocations so far (sends, receives), for tests */
    long[] preparedCounts() {
        return new long[] {sends == null ? 0 : sends.preparedCount(), recvs == null ? 0 : recvs.preparedCount()};
    }

    /** Releases the INLINE staging region (the QP is destroyed). */
    void close() {
        staging.close();
    }
}
