package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.Arrays;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCmId;

import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.disni.sysfs.RoceGid;

/**
 * The RDMA CM connection that carries a DiSNI QP's state machine (see {@link DisniQp}): the path
 * fixed at RTR, the handshake started at RTS (active: bind to the vNIC, resolve, rdma_create_qp,
 * connect; passive: accept the request reaching the QP's listener), its outcome, and the moves to
 * ERR and RESET that tear it down.
 *
 * <p>Every method runs with the CM lock and then the QP's monitor held (the QP's entry points take
 * them), except {@link #remoteQpn()}, which the poller reads.
 */
final class QpConnection {
    private static final System.Logger LOG = System.getLogger(DisniQp.class.getName());

    private final DisniQp qp;
    private final DisniContext ctx;
    private final RecordedQpAttrs attrs;
    private final QpPosting posting;

    private RoceGid local;
    private InetSocketAddress remote;
    private boolean active;
    private int retryCount;
    private int rnrRetryCount;
    private long deadlineNanos;
    private String deadReason;
    private long deadDeadlineNanos;
    private RdmaCmId connId;

    QpConnection(DisniQp qp, RecordedQpAttrs attrs, QpPosting posting) {
        this.qp = qp;
        this.ctx = qp.ctx;
        this.attrs = attrs;
        this.posting = posting;
    }

    // ---------------------------------------------------------------- transitions (modifyQp)

    /** RTR fixes the path: sgidIndex selects the local vNIC, dgid and destQpNum the peer's listener. */
    void toRtr(IbvQpAttr attr, int mask) throws VerbsException {
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
            cmp = Integer.compare(qp.qpn, destQpn);
        }
        if (cmp == 0) {
            throw new VerbsException(VerbsException.EINVAL, "RTR: a QP cannot be connected to itself over RDMA CM");
        }
        local = gid;
        remote = new InetSocketAddress(dgid, destQpn);
        active = cmp > 0;
        attrs.record(attr, mask);
        qp.moveTo(IbvQpState.RTR);
    }

    /**
     * RTS starts the RDMA CM handshake: only now are the retry counts known, which DiSNI can pass
     * to rdma_connect/rdma_accept and nowhere else. A request that reached the listener earlier is
     * accepted now.
     */
    void toRts(IbvQpAttr attr, int mask) throws VerbsException {
        boolean first = qp.state() == IbvQpState.RTR;
        attrs.record(attr, mask);
        qp.moveTo(IbvQpState.RTS);
        if (!first) {
            return;
        }
        retryCount = attrs.retryCnt();
        rnrRetryCount = attrs.rnrRetry();
        deadlineNanos = System.nanoTime() + ctx.settings().connectTimeoutMillis() * 1_000_000L;
        ConnectionManager cm = ctx.cm();
        cm.connecting(qp);
        if (active) {
            try {
                connId = cm.startActive(qp, new InetSocketAddress(local.address(), 0), remote);
            } catch (IOException e) {
                connectionFailed("RDMA CM address resolution failed to start: " + e.getMessage());
            }
        } else {
            RdmaCmId held = cm.takeHeldRequest(qp);
            if (held != null) {
                accept(held);
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
    void fail(String reason, boolean requested) {
        LOG.log(Level.DEBUG, "QP " + qp.qpn + " to ERR: " + reason);
        qp.moveTo(IbvQpState.ERR);
        deadReason = null;
        deadDeadlineNanos = 0;
        ConnectionManager cm = ctx.cm();
        cm.settled(qp);
        cm.dropHeld(qp);
        if (posting.isEstablished() && posting.hasNativeQp()) {
            cm.disconnect(connId);
            return;
        }
        destroyNative();
        posting.flushOutstanding(!requested);
    }

    /** RESET: the native QP and its CM id are destroyed, the path forgotten; the listener stays. */
    void reset() {
        abandon();
        posting.discard();
        local = null;
        remote = null;
        deadReason = null;
        deadDeadlineNanos = 0;
        qp.moveTo(IbvQpState.RESET);
    }

    /** Stops any handshake and destroys the native QP and the connection's CM id (reset, close). */
    void abandon() {
        ConnectionManager cm = ctx.cm();
        cm.settled(qp);
        cm.dropHeld(qp);
        destroyNative();
    }

    // ---------------------------------------------------------------- CM events (CM thread)

    /** A connection request reached this QP's listener. */
    void onConnectRequest(RdmaCmId id) {
        ConnectionManager cm = ctx.cm();
        IbvQpState state = qp.state();
        boolean ready = state == IbvQpState.RTS;
        if (qp.isClosed() || state == IbvQpState.ERR || connId != null || (ready && active)) {
            cm.destroyQuietly(id);
        } else if (ready) {
            accept(id);
        } else if (!cm.hold(qp, id)) {
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
            cm.adopt(id, qp);
            connId = id;
            materialize(id);
            cm.accept(id, retryCount, rnrRetryCount);
        } catch (IOException e) {
            connectionFailed("rdma_accept failed: " + e.getMessage());
        }
    }

    /** Active side: the route to the peer is known; create the native QP and connect. */
    void onRouteResolved(RdmaCmId id) {
        if (qp.isClosed() || id != connId || qp.state() != IbvQpState.RTS) {
            return;
        }
        try {
            materialize(id);
            ctx.cm().connect(id, retryCount, rnrRetryCount);
        } catch (IOException e) {
            connectionFailed("rdma_connect failed: " + e.getMessage());
        }
    }

    void onEstablished(RdmaCmId id) {
        if (qp.isClosed() || id != connId || !posting.hasNativeQp() || posting.isEstablished()
                || qp.state() != IbvQpState.RTS) {
            return;
        }
        ctx.cm().settled(qp);
        try {
            posting.establish();
        } catch (IOException e) {
            connectionFailed("replaying sends posted before the connection failed: " + e.getMessage());
        }
    }

    void onConnectFailed(RdmaCmId id, String reason) {
        if (qp.isClosed() || id != connId || posting.isEstablished() || qp.state() != IbvQpState.RTS) {
            return;
        }
        connectionFailed(reason);
    }

    /**
     * The peer disconnected. The RDMA CM does not touch this QP: as on a real NIC, a peer that went
     * to ERR shows as retries running out; a disconnect of our own (ERR) already flushed us.
     */
    void onDisconnected(RdmaCmId id) {
        if (qp.isClosed() || id != connId || qp.state() == IbvQpState.RESET) {
            return;
        }
        if (!posting.isEstablished()) {
            connectionFailed("peer disconnected before the connection was established");
        }
    }

    /**
     * Connect deadline check (CM thread).
     *
     * @return true when the QP needs no more checks
     */
    boolean expireIfLate(long now) {
        if (qp.isClosed() || posting.isEstablished() || qp.state() != IbvQpState.RTS) {
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

    // ---------------------------------------------------------------- failed connection

    /** @return true when the connection could not be made and the QP waits for work to fail */
    boolean failed() {
        return deadReason != null;
    }

    /**
     * The connection could not be made (rejected, unreachable, timed out, peer gone). To the SPI the
     * QP is still in RTS with a peer that never answers: outstanding sends fail now (the oldest with
     * RETRY_EXC_ERR) and the QP goes to ERR; without any, the QP stays in RTS and the next send
     * fails after the retransmit budget its attributes give, (retry_cnt + 1) x timeout.
     */
    private void connectionFailed(String reason) {
        if (posting.sendsOutstanding()) {
            fail(reason, false);
            return;
        }
        LOG.log(Level.DEBUG, "QP " + qp.qpn + ": connection failed, waiting for work: " + reason);
        ctx.cm().dropHeld(qp);
        destroyNative();
        posting.dropWaiting(); // receives stay outstanding in the FIFO until the QP fails
        deadReason = reason;
    }

    /** A send posted on a failed connection: it fails once its retransmit budget has run out. */
    void armDeadline() {
        if (deadDeadlineNanos == 0 && attrs.timeout() > 0) {
            long budget = (attrs.retryCnt() + 1L) * (4096L << attrs.timeout());
            deadDeadlineNanos = System.nanoTime() + budget;
        }
    }

    // ---------------------------------------------------------------- native QP

    /** rdma_create_qp on {@code id}, then the receives posted so far are replayed onto it. */
    private void materialize(RdmaCmId id) throws IOException {
        IbvQP q = id.createQP(qp.pd.pd, posting.nativeInitAttr());
        if (q == null) {
            throw new IOException("rdma_create_qp returned no QP");
        }
        posting.attach(q);
    }

    /** Destroys the native QP and the connection's CM id. */
    private void destroyNative() {
        IbvQP q = posting.detach();
        RdmaCmId id = connId;
        connId = null;
        if (id != null) {
            ctx.cm().release(id, q != null);
        }
    }

    /** @return the peer's QP number (receive completions' source QP), 0 before RTR */
    int remoteQpn() {
        InetSocketAddress r = remote;
        return r == null ? 0 : r.getPort();
    }

    /** @return ", local -> remote" once the path is fixed, else empty (for the QP's toString) */
    String describePath() {
        return local == null ? "" : ", " + local.address() + " -> " + remote;
    }
}
