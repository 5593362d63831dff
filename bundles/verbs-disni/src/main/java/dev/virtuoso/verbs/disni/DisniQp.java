package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.disni.sysfs.RoceGid;

/**
 * An RC QP over DiSNI. DiSNI 2.1 has no usable {@code ibv_modify_qp} (its native modify passes an
 * uninitialised attribute struct) and creates QPs only with {@code rdma_create_qp} on an RDMA CM
 * id, so the SPI state machine is carried by the RDMA CM:
 * <ul>
 * <li>createQp: a CM id listening on the wildcard address with a free port; the port IS the QP
 * number the SPI reports (peers learn it in the core's handshake as usual).</li>
 * <li>INIT: recorded. Receives posted now wait in {@link PendingWork}.</li>
 * <li>RTR: the path is fixed: sgidIndex selects the local vNIC (GID entry), dgid the peer's vNIC,
 * destQpNum the peer's listener port; the side with the larger (address, QPN) will be active.</li>
 * <li>RTS: the handshake starts (only now are the retry counts known, which DiSNI can pass to
 * rdma_connect/rdma_accept and nowhere else). Active: a CM id bound to the vNIC address (so the QP
 * uses that alias's GID), address and route resolution, {@code rdma_create_qp}, replay of pending
 * receives, {@code rdma_connect}. Passive: the request that reaches the listener is accepted the
 * same way ({@code rdma_accept}). librdmacm moves the native QP through INIT, RTR and RTS with the
 * values of the CM REQ/REP; DiSNI sets the RDMA read depths to the device maximum. Sends posted
 * before ESTABLISHED wait in {@link PendingWork}.</li>
 * <li>ERR: {@code rdma_disconnect} (librdmacm moves the QP to ERR; the NIC flushes); without a
 * connection the binding flushes in software.</li>
 * <li>RESET: the native QP and its CM id are destroyed; the QP number (listener) is kept.</li>
 * </ul>
 * Attributes the RDMA CM decides are recorded for {@link #queryQp} but not applied: PSNs, path MTU,
 * ACK timeout, min RNR timer, access flags, flow label, traffic class and hop limit (docs).
 */
final class DisniQp implements IbvQp {
    private static final System.Logger LOG = System.getLogger(DisniQp.class.getName());

    final DisniContext ctx;
    final DisniPd pd;
    final DisniCq sendCq;
    final DisniCq recvCq;
    final int qpn;
    private final int maxSendWr;
    private final int maxRecvWr;
    private final int maxSendSge;
    private final int maxRecvSge;
    private final int maxInline;
    private final boolean sigAll;
    private final WrRings rings;
    private final PendingWork pending;
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    private final RecordedQpAttrs attrs = new RecordedQpAttrs();
    private final RdmaCmId listener;

    private volatile IbvQpState state = IbvQpState.RESET;
    private volatile boolean closed;
    private volatile IbvQP nativeQp;
    private volatile boolean established;
    private PreparedSends sends;
    private PreparedRecvs recvs;

    // path and CM state: guarded by the CM lock, then this
    private RoceGid local;
    private InetSocketAddress remote;
    private boolean active;
    private int retryCount;
    private int rnrRetryCount;
    private long deadlineNanos;
    private String deadReason;
    private long deadDeadlineNanos;
    private RdmaCmId connId;
    private ByteBuffer staging;
    private DisniMr stagingMr;

    private DisniQp(DisniPd pd, DisniCq sendCq, DisniCq recvCq, IbvQpInitAttr a, int qpn,
            RdmaCmId listener) {
        this.ctx = pd.context();
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qpn = qpn;
        this.listener = listener;
        this.maxSendWr = a.maxSendWr();
        this.maxRecvWr = a.maxRecvWr();
        this.maxSendSge = a.maxSendSge();
        this.maxRecvSge = a.maxRecvSge();
        this.maxInline = a.maxInlineData();
        this.sigAll = a.sqSigAll();
        this.rings = new WrRings(maxSendWr, maxRecvWr);
        this.pending = new PendingWork(Math.max(maxSendSge, maxRecvSge));
    }

    static DisniQp create(DisniPd pd, IbvQpInitAttr a) throws VerbsException {
        if (a == null) {
            throw new VerbsException(VerbsException.EINVAL, "createQp: attributes are required");
        }
        DisniContext ctx = pd.context();
        DisniCq scq = ctx.ownCq(a.sendCq(), "send");
        DisniCq rcq = ctx.ownCq(a.recvCq(), "receive");
        if (a.srq() != null) {
            throw new VerbsException(VerbsException.EOPNOTSUPP, "SRQ is not supported by DiSNI 2.1");
        }
        if (a.maxSendWr() < 1 || a.maxRecvWr() < 1 || a.maxSendSge() < 0 || a.maxRecvSge() < 0
                || a.maxInlineData() < 0) {
            throw new VerbsException(VerbsException.EINVAL, "createQp: queue depths must be >= 1");
        }
        if (a.maxSendSge() > DisniLimits.MAX_SGE || a.maxRecvSge() > DisniLimits.MAX_SGE) {
            throw new VerbsException(VerbsException.EINVAL,
                    "createQp: libdisni 2.1 creates QPs with " + DisniLimits.MAX_SGE + " SGEs per WR");
        }
        ConnectionManager cm = ctx.cm();
        cm.lock();
        try {
            ConnectionManager.Listener l = cm.listen();
            DisniQp qp = new DisniQp(pd, scq, rcq, a, l.port(), l.id());
            cm.registerListener(l.id(), qp);
            ctx.register(qp);
            return qp;
        } catch (IOException e) {
            throw Errors.verbs("createQp: no RDMA CM port for the QP's listener", e);
        } finally {
            cm.unlock();
        }
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public IbvQpState state() {
        return state;
    }

    @Override
    public VerbsCounters counters() {
        return UncountedCounters.INSTANCE;
    }

    // ---------------------------------------------------------------- modify / query

    @Override
    public void modifyQp(IbvQpAttr attr, int mask) throws VerbsException {
        if (attr == null) {
            throw new VerbsException(VerbsException.EINVAL, "modifyQp: attributes are required");
        }
        ConnectionManager cm = ctx.cm();
        cm.lock();
        try {
            synchronized (this) {
                if (closed) {
                    throw new VerbsException(VerbsException.EINVAL, "QP " + qpn + " is destroyed");
                }
                IbvQpState to = QpTransitions.target(state, attr, mask);
                switch (to) {
                    case INIT -> {
                        attrs.record(attr, mask);
                        state = to;
                    }
                    case RTR -> toRtr(attr, mask);
                    case RTS -> toRts(attr, mask);
                    case ERR -> {
                        if (state != IbvQpState.ERR) {
                            fail("modified to ERR", true);
                        }
                    }
                    case RESET -> reset();
                    default -> throw new VerbsException(VerbsException.EINVAL, "unsupported state " + to);
                }
            }
        } finally {
            cm.unlock();
        }
    }

    private void toRtr(IbvQpAttr attr, int mask) throws VerbsException {
        if (!(attr.ahAttr().dgid() instanceof Inet4Address dgid)) {
            throw new VerbsException(VerbsException.EINVAL,
                    "RTR: dgid must be an IPv4 address (DiSNI 2.1's RDMA CM calls are AF_INET only): "
                            + attr.ahAttr().dgid());
        }
        RoceGid gid = ctx.gid(attrs.portNum(), attr.ahAttr().sgidIndex());
        int destQpn = attr.destQpNum();
        if (destQpn < 1 || destQpn > 65535) {
            throw new VerbsException(VerbsException.EINVAL,
                    "RTR: destQpNum " + destQpn + " is not a DiSNI-binding QP (its number is an RDMA CM port)");
        }
        int cmp = Arrays.compareUnsigned(gid.address().getAddress(), dgid.getAddress());
        if (cmp == 0) {
            cmp = Integer.compare(qpn, destQpn);
        }
        if (cmp == 0) {
            throw new VerbsException(VerbsException.EINVAL, "RTR: a QP cannot be connected to itself over RDMA CM");
        }
        local = gid;
        remote = new InetSocketAddress(dgid, destQpn);
        active = cmp > 0;
        attrs.record(attr, mask);
        state = IbvQpState.RTR;
    }

    /**
     * RTS starts the RDMA CM handshake: only now are the retry counts known, which DiSNI can pass
     * to rdma_connect/rdma_accept and nowhere else. A request that reached the listener earlier is
     * accepted now.
     */
    private void toRts(IbvQpAttr attr, int mask) throws VerbsException {
        boolean first = state == IbvQpState.RTR;
        attrs.record(attr, mask);
        state = IbvQpState.RTS;
        if (!first) {
            return;
        }
        retryCount = attrs.retryCnt();
        rnrRetryCount = attrs.rnrRetry();
        deadlineNanos = System.nanoTime() + ctx.settings().connectTimeoutMillis() * 1_000_000L;
        ConnectionManager cm = ctx.cm();
        cm.connecting(this);
        if (active) {
            try {
                connId = cm.startActive(this, new InetSocketAddress(local.address(), 0), remote);
            } catch (IOException e) {
                connectionFailed("RDMA CM address resolution failed to start: " + e.getMessage());
            }
        } else {
            RdmaCmId held = cm.takeHeldRequest(this);
            if (held != null) {
                accept(held);
            }
        }
    }

    @Override
    public synchronized void queryQp(IbvQpAttr out) throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + qpn + " is destroyed");
        }
        attrs.copyTo(out, state);
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postSend(IbvSendWr wr) throws VerbsException {
        validate(wr);
        IbvQpState s = state;
        if (s != IbvQpState.RTS && s != IbvQpState.ERR) {
            throw new VerbsException(VerbsException.EINVAL, "postSend: QP " + qpn + " is in " + s + ", not RTS");
        }
        if (established) {
            synchronized (sendLock) {
                if (established && nativeQp != null) {
                    postSendNative(wr, rings.reserveSend(wr.wrId()));
                    return;
                }
            }
        }
        postSendSlow(wr);
    }

    private synchronized void postSendSlow(IbvSendWr wr) throws VerbsException {
        synchronized (sendLock) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "QP " + qpn + " is destroyed");
            }
            long seq = rings.reserveSend(wr.wrId());
            if (established && nativeQp != null) {
                postSendNative(wr, seq);
            } else if (state == IbvQpState.ERR) {
                sendCq.addSynthetic(NativeWrId.send(qpn, seq), IbvWcStatus.WR_FLUSH_ERR);
            } else if (deadReason != null) {
                armDeadline();
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
            return;
        }
        // INLINE means "copied at post time": stage the bytes in a region of our own
        int slot = (int) (seq % maxSendWr);
        int stride = Math.max(1, maxInline);
        ByteBuffer dst = stagingBuffer().duplicate().clear().position(slot * stride);
        for (int i = 0; i < wr.numSge(); i++) {
            DisniMr src = pd.regionCovering(wr.sge(i).addr(), wr.sge(i).length());
            if (src == null) {
                throw new VerbsException(VerbsException.EINVAL, "postSend: an INLINE send posted before the "
                        + "RDMA CM connection is established must come from a registered region");
            }
            dst.put(src.view(wr.sge(i).addr(), wr.sge(i).length()));
        }
        int total = (int) wr.totalLength();
        IbvSendWr staged = new IbvSendWr(1);
        staged.wrId(wr.wrId()).opcode(wr.opcode()).sendFlags(wr.sendFlags()).numSge(1)
                .remoteAddr(wr.remoteAddr()).rkey(wr.rkey()).immData(wr.immData());
        staged.sge(0).set(stagingMr.address() + (long) slot * stride, total, stagingMr.lkey());
        pending.addSend(staged, NativeWrId.send(qpn, seq), maxSendWr);
    }

    private ByteBuffer stagingBuffer() throws VerbsException {
        if (staging == null) {
            ByteBuffer b = ByteBuffer.allocateDirect(maxSendWr * Math.max(1, maxInline));
            stagingMr = (DisniMr) pd.regMr(b, IbvAccess.LOCAL_WRITE);
            staging = stagingMr.buffer();
        }
        return staging;
    }

    @Override
    public void postRecv(IbvRecvWr wr) throws VerbsException {
        if (wr == null || wr.numSge() > maxRecvSge) {
            throw new VerbsException(VerbsException.EINVAL, "postRecv: null WR or more than "
                    + maxRecvSge + " SGEs");
        }
        if (state == IbvQpState.RESET) {
            throw new VerbsException(VerbsException.EINVAL, "postRecv: QP " + qpn + " is in RESET");
        }
        if (nativeQp != null) {
            synchronized (recvLock) {
                if (nativeQp != null) {
                    rings.reserveRecv(wr.wrId());
                    postRecvNative(wr);
                    return;
                }
            }
        }
        postRecvSlow(wr);
    }

    private synchronized void postRecvSlow(IbvRecvWr wr) throws VerbsException {
        synchronized (recvLock) {
            if (closed || state == IbvQpState.RESET) {
                throw new VerbsException(VerbsException.EINVAL, "postRecv: QP " + qpn + " is "
                        + (closed ? "destroyed" : "in RESET"));
            }
            rings.reserveRecv(wr.wrId());
            if (nativeQp != null) {
                postRecvNative(wr);
            } else if (state == IbvQpState.ERR) {
                recvCq.addSynthetic(NativeWrId.recv(qpn), IbvWcStatus.WR_FLUSH_ERR);
            } else if (deadReason == null) {
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

    private void validate(IbvSendWr wr) throws VerbsException {
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

    // ---------------------------------------------------------------- completions (poller)

    long takeSendWrId(long seq) {
        return rings.takeSend(seq);
    }

    long takeRecvWrId() {
        return rings.takeRecv();
    }

    /** @return the peer's QP number (receive completions' source QP) */
    int remoteQpn() {
        InetSocketAddress r = remote;
        return r == null ? 0 : r.getPort();
    }

    /** A completion with an error status: the NIC has moved the QP to ERR. */
    void onErrorCompletion() {
        if (state != IbvQpState.RESET && !closed) {
            state = IbvQpState.ERR;
        }
    }

    // ---------------------------------------------------------------- CM callbacks (CM thread, CM lock held)

    /** A connection request reached this QP's listener. */
    synchronized void onConnectRequest(RdmaCmId id) {
        ConnectionManager cm = ctx.cm();
        boolean ready = state == IbvQpState.RTS;
        if (closed || state == IbvQpState.ERR || connId != null || (ready && active)) {
            cm.destroyQuietly(id);
        } else if (ready) {
            accept(id);
        } else if (!cm.hold(this, id)) {
            cm.destroyQuietly(id);
        }
    }

    /** Passive side: create the native QP on the request's id and accept it. */
    private void accept(RdmaCmId id) {
        ConnectionManager cm = ctx.cm();
        try {
            if (!cm.matches(id, local.address(), remote.getAddress())) {
                cm.destroyQuietly(id);
                return;
            }
            cm.adopt(id, this);
            connId = id;
            materialize(id);
            cm.accept(id, retryCount, rnrRetryCount);
        } catch (IOException e) {
            connectionFailed("rdma_accept failed: " + e.getMessage());
        }
    }

    /** Active side: the route to the peer is known; create the native QP and connect. */
    synchronized void onRouteResolved(RdmaCmId id) {
        if (closed || id != connId || state != IbvQpState.RTS) {
            return;
        }
        try {
            materialize(id);
            ctx.cm().connect(id, retryCount, rnrRetryCount);
        } catch (IOException e) {
            connectionFailed("rdma_connect failed: " + e.getMessage());
        }
    }

    synchronized void onEstablished(RdmaCmId id) {
        if (closed || id != connId || nativeQp == null || established || state != IbvQpState.RTS) {
            return;
        }
        ctx.cm().settled(this);
        synchronized (sendLock) {
            try {
                while (pending.sendCount() > 0) {
                    IbvSendWr w = pending.peekSend();
                    int flags = w.sendFlags() | (sigAll ? IbvSendFlags.SIGNALED : 0);
                    sends.post(w, pending.peekSendId(), Codes.sendFlags(flags));
                    pending.dropSend();
                }
                established = true;
            } catch (IOException e) {
                connectionFailed("replaying sends posted before the connection failed: " + e.getMessage());
            }
        }
    }

    synchronized void onConnectFailed(RdmaCmId id, String reason) {
        if (closed || id != connId || established || state != IbvQpState.RTS) {
            return;
        }
        connectionFailed(reason);
    }

    /**
     * The peer disconnected. The RDMA CM does not touch this QP: as on a real NIC, a peer that went
     * to ERR shows as retries running out; a disconnect of our own (ERR) already flushed us.
     */
    synchronized void onDisconnected(RdmaCmId id) {
        if (closed || id != connId || state == IbvQpState.RESET) {
            return;
        }
        if (!established) {
            connectionFailed("peer disconnected before the connection was established");
        }
    }

    /** Connect deadline check (CM thread). */
    synchronized boolean expireIfLate(long now) {
        if (closed || established || state != IbvQpState.RTS) {
            return true;
        }
        if (deadReason != null) {
            if (deadDeadlineNanos != 0 && now - deadDeadlineNanos >= 0) {
                fail(deadReason, false);
                return true;
            }
            return false;
        }
        if (now - deadlineNanos >= 0) {
            connectionFailed("RDMA CM connection to " + remote + " not established within "
                    + ctx.settings().connectTimeoutMillis() + " ms");
        }
        return false;
    }

    // ---------------------------------------------------------------- native lifecycle

    /** rdma_create_qp on {@code id}, then replay the receives posted so far. */
    private void materialize(RdmaCmId id) throws IOException {
        IbvQPInitAttr ia = new IbvQPInitAttr();
        ia.setSend_cq(sendCq.nativeCq);
        ia.setRecv_cq(recvCq.nativeCq);
        ia.setQp_type(IbvQP.IBV_QPT_RC);
        ia.cap().setMax_send_wr(maxSendWr);
        ia.cap().setMax_recv_wr(maxRecvWr);
        ia.cap().setMax_send_sge(maxSendSge);
        ia.cap().setMax_recv_sge(maxRecvSge);
        ia.cap().setMax_inline_data(maxInline);
        IbvQP q = id.createQP(pd.pd, ia);
        if (q == null) {
            throw new IOException("rdma_create_qp returned no QP");
        }
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

    /**
     * Moves the QP to ERR.
     * <ul>
     * <li>Established connection: rdma_disconnect; librdmacm moves the native QP to ERR and the NIC
     * flushes its queues. The peer gets DISCONNECTED and keeps its QP: its work then meets a QP in
     * ERR and its retries run out, as with any peer in ERR.</li>
     * <li>No connection (yet): no traffic has flowed, so the handshake is abandoned, the native QP
     * (if any) destroyed and every outstanding WR flushed in software, in posting order. When the
     * connection failed (rather than ERR being requested), the oldest send completes with
     * RETRY_EXC_ERR: to the SPI the peer never answered.</li>
     * </ul>
     */
    private void fail(String reason, boolean requested) {
        LOG.log(Level.DEBUG, "QP " + qpn + " to ERR: " + reason);
        state = IbvQpState.ERR;
        deadReason = null;
        deadDeadlineNanos = 0;
        ConnectionManager cm = ctx.cm();
        cm.settled(this);
        cm.dropHeld(this);
        if (established && nativeQp != null) {
            cm.disconnect(connId);
            return;
        }
        destroyNative();
        flushOutstanding(!requested);
    }

    /**
     * The connection could not be made (rejected, unreachable, timed out, peer gone). To the SPI the
     * QP is still in RTS with a peer that never answers: outstanding sends fail now (the oldest with
     * RETRY_EXC_ERR) and the QP goes to ERR; without any, the QP stays in RTS and the next send
     * fails after the retransmit budget its attributes give, (retry_cnt + 1) x timeout.
     */
    private void connectionFailed(String reason) {
        if (rings.sendPosted() != rings.sendDone()) {
            fail(reason, false);
            return;
        }
        LOG.log(Level.DEBUG, "QP " + qpn + ": connection failed, waiting for work: " + reason);
        ctx.cm().dropHeld(this);
        destroyNative();
        synchronized (sendLock) {
            synchronized (recvLock) {
                pending.clear(); // receives stay outstanding in the FIFO until the QP fails
            }
        }
        deadReason = reason;
    }

    /** A send posted on a dead connection: it fails once its retransmit budget has run out. */
    private void armDeadline() {
        if (deadDeadlineNanos == 0 && attrs.timeout() > 0) {
            long budget = (attrs.retryCnt() + 1L) * (4096L << attrs.timeout());
            deadDeadlineNanos = System.nanoTime() + budget;
        }
    }

    /** Software flush of every outstanding WR, in posting order. */
    private void flushOutstanding(boolean firstSendTimedOut) {
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

    private void reset() {
        ConnectionManager cm = ctx.cm();
        cm.settled(this);
        cm.dropHeld(this);
        destroyNative();
        synchronized (sendLock) {
            synchronized (recvLock) {
                pending.clear();
                rings.discard();
            }
        }
        local = null;
        remote = null;
        deadReason = null;
        deadDeadlineNanos = 0;
        state = IbvQpState.RESET;
    }

    /** Destroys the native QP and the connection's CM id (CM lock and this held). */
    private void destroyNative() {
        IbvQP q;
        synchronized (sendLock) {
            synchronized (recvLock) {
                q = nativeQp;
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
            }
        }
        RdmaCmId id = connId;
        connId = null;
        if (id != null) {
            ctx.cm().release(id, q != null);
        }
    }

    /** @return prepared-call allocations so far (sends, receives), for tests */
    synchronized long[] preparedCounts() {
        return new long[] {sends == null ? 0 : sends.preparedCount(), recvs == null ? 0 : recvs.preparedCount()};
    }

    @Override
    public void close() {
        ConnectionManager cm = ctx.cm();
        cm.lock();
        try {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                cm.settled(this);
                cm.dropHeld(this);
                destroyNative();
                synchronized (sendLock) {
                    synchronized (recvLock) {
                        pending.clear();
                    }
                }
                cm.closeListener(listener);
                state = IbvQpState.ERR;
            }
        } finally {
            cm.unlock();
        }
        if (stagingMr != null) {
            stagingMr.close();
        }
        ctx.unregister(this);
        pd.forget(this);
    }

    @Override
    public String toString() {
        return "DisniQp[" + qpn + ", " + state + (local == null ? "" : ", " + local.address() + " -> " + remote)
                + "]";
    }
}
