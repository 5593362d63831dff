package dev.virtuoso.verbs.disni;

import java.io.IOException;

import com.ibm.disni.verbs.RdmaCmId;

import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * An RC QP over DiSNI. DiSNI 2.1 has no usable {@code ibv_modify_qp} (its native modify passes an
 * uninitialised attribute struct) and creates QPs only with {@code rdma_create_qp} on an RDMA CM
 * id, so the SPI state machine is carried by the RDMA CM ({@link QpConnection}):
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
 * Posting goes through DiSNI's stateful verb calls ({@link QpPosting}).
 *
 * <p>Locks: the CM lock, then this QP's monitor (state changes, CM events, slow posting paths),
 * then {@link QpPosting}'s send and receive locks.
 */
final class DisniQp implements IbvQp {
    final DisniContext ctx;
    final DisniPd pd;
    final int qpn;
    private final RecordedQpAttrs attrs = new RecordedQpAttrs();
    private final RdmaCmId listener;
    private final QpPosting posting;
    private final QpConnection connection;

    private volatile IbvQpState state = IbvQpState.RESET;
    private volatile boolean closed;

    private DisniQp(DisniPd pd, DisniCq sendCq, DisniCq recvCq, IbvQpInitAttr a, int qpn, RdmaCmId listener) {
        this.ctx = pd.context();
        this.pd = pd;
        this.qpn = qpn;
        this.listener = listener;
        this.posting = new QpPosting(this, sendCq, recvCq, a);
        this.connection = new QpConnection(this, attrs, posting);
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

    boolean isClosed() {
        return closed;
    }

    /** Sets the state; callers hold this QP's monitor. */
    void moveTo(IbvQpState s) {
        state = s;
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
        if ((mask & IbvQpAttr.RATE_LIMIT) != 0) {
            // DiSNI has no rate_limit field; queryDevice reports no pacing
            throw new VerbsException(VerbsException.EOPNOTSUPP, "packet pacing (RATE_LIMIT) is not supported by DiSNI");
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
                    case RTR -> connection.toRtr(attr, mask);
                    case RTS -> connection.toRts(attr, mask);
                    case ERR -> {
                        if (state != IbvQpState.ERR) {
                            connection.fail("modified to ERR", true);
                        }
                    }
                    case RESET -> connection.reset();
                    default -> throw new VerbsException(VerbsException.EINVAL, "unsupported state " + to);
                }
            }
        } finally {
            cm.unlock();
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
        posting.validate(wr);
        IbvQpState s = state;
        if (s != IbvQpState.RTS && s != IbvQpState.ERR) {
            throw new VerbsException(VerbsException.EINVAL, "postSend: QP " + qpn + " is in " + s + ", not RTS");
        }
        if (!posting.postSendEstablished(wr)) {
            postSendSlow(wr);
        }
    }

    private synchronized void postSendSlow(IbvSendWr wr) throws VerbsException {
        posting.postSendSlow(wr, connection);
    }

    @Override
    public void postRecv(IbvRecvWr wr) throws VerbsException {
        posting.validate(wr);
        if (state == IbvQpState.RESET) {
            throw new VerbsException(VerbsException.EINVAL, "postRecv: QP " + qpn + " is in RESET");
        }
        if (!posting.postRecvNativeQp(wr)) {
            postRecvSlow(wr);
        }
    }

    private synchronized void postRecvSlow(IbvRecvWr wr) throws VerbsException {
        posting.postRecvSlow(wr, connection);
    }

    // ---------------------------------------------------------------- completions (poller)

    long takeSendWrId(long seq) {
        return posting.takeSendWrId(seq);
    }

    long takeRecvWrId() {
        return posting.takeRecvWrId();
    }

    /** @return the peer's QP number (receive completions' source QP) */
    int remoteQpn() {
        return connection.remoteQpn();
    }

    /** A completion with an error status: the NIC has moved the QP to ERR. */
    void onErrorCompletion() {
        if (state != IbvQpState.RESET && !closed) {
            state = IbvQpState.ERR;
        }
    }

    // ---------------------------------------------------------------- CM events (CM thread, CM lock held)

    synchronized void onConnectRequest(RdmaCmId id) {
        connection.onConnectRequest(id);
    }

    synchronized void onRouteResolved(RdmaCmId id) {
        connection.onRouteResolved(id);
    }

    synchronized void onEstablished(RdmaCmId id) {
        connection.onEstablished(id);
    }

    synchronized void onConnectFailed(RdmaCmId id, String reason) {
        connection.onConnectFailed(id, reason);
    }

    synchronized void onDisconnected(RdmaCmId id) {
        connection.onDisconnected(id);
    }

    /** Connect deadline check (CM thread); true when the QP needs no more checks. */
    synchronized boolean expireIfLate(long now) {
        return connection.expireIfLate(now);
    }

    /** @return prepared-call allocations so far (sends, receives), for tests */
    synchronized long[] preparedCounts() {
        return posting.preparedCounts();
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
                connection.abandon();
                posting.dropWaiting();
                cm.closeListener(listener);
                state = IbvQpState.ERR;
            }
        } finally {
            cm.unlock();
        }
        posting.close();
        ctx.unregister(this);
        pd.forget(this);
    }

    @Override
    public String toString() {
        return "DisniQp[" + qpn + ", " + state + connection.describePath() + "]";
    }
}
