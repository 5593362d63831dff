package dev.virtuoso.verbs.soft.rnic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvAhAttr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.soft.packet.Psn;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * An RC queue pair. Posting threads only copy WRs into the rings; every other piece of state
 * (attributes, requester, responder) belongs to the device's engine thread, and state changes
 * requested through {@link #modifyQp} run on that thread too.
 */
final class SoftQp implements IbvQp {
    /** Largest {@code max_rd_atomic} / {@code max_dest_rd_atomic} accepted. */
    static final int MAX_RD_ATOMIC = 64;

    final SoftRnic rnic;
    final SoftPd pd;
    final int qpNum;
    final SoftCq sendCq;
    final SoftCq recvCq;
    final SoftSrq srq;
    final SendRing sq;
    final RecvRing rq;
    final boolean sigAll;
    final SoftCounters counters;
    final Requester requester;
    final Responder responder;

    private volatile IbvQpState state = IbvQpState.RESET;
    private volatile boolean destroyed;
    private boolean cqBroken;

    // attributes: engine thread
    int accessFlags;
    IbvMtu pathMtu = IbvMtu.MTU_4096;
    int mtu = 4096;
    int mtuShift = 12;
    int destQpn;
    int rqPsn;
    int sqPsn;
    int timeout;
    int retryCnt;
    int rnrRetry;
    int minRnrTimer;
    /** Send rate limit in kbit/s, 0 for none (packet pacing). */
    int rateLimit;
    int maxRdAtomic;
    int maxDestRdAtomic;
    private final IbvAhAttr ah = new IbvAhAttr();

    // path, fixed at RTR: engine thread
    WirePort port;
    int portIndex;
    InetSocketAddress remote;
    byte[] localIp;
    InetAddress localAddress;
    byte[] remoteIp;
    int localPort;
    int remotePort;

    /** Send WRs published by posters and seen by the engine. */
    long sqPosted;
    /** Engine: in the engine's active set (visited every cycle). */
    boolean active;
    /** Engine: visits by the engine's duty cycle so far (what the active set saves shows in tests). */
    long visits;
    /** Doorbell rung and not yet taken by the engine: posters queue the QP only on the first ring. */
    private volatile boolean rung;
    private static final VarHandle RUNG;

    static {
        try {
            RUNG = MethodHandles.lookup().findVarHandle(SoftQp.class, "rung", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    SoftQp(SoftRnic rnic, SoftPd pd, int qpNum, SoftCq sendCq, SoftCq recvCq, SoftSrq srq,
            int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInline,
            boolean sigAll) {
        this.rnic = rnic;
        this.pd = pd;
        this.qpNum = qpNum;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.sq = new SendRing(maxSendWr, maxSendSge, maxInline);
        this.rq = srq == null ? new RecvRing(maxRecvWr, maxRecvSge) : null;
        this.sigAll = sigAll;
        this.counters = new SoftCounters(rnic.counters);
        this.requester = new Requester(this, sq);
        this.responder = new Responder(this, srq != null ? srq.ring.maxSge : maxRecvSge);
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public IbvQpState state() {
        return state;
    }

    boolean isRts() {
        return state == IbvQpState.RTS;
    }

    @Override
    public void modifyQp(IbvQpAttr attr, int attrMask) throws VerbsException {
        checkAlive();
        IbvQpAttr copy = copy(attr, new IbvQpAttr());
        rnic.call(e -> {
            e.activate(this);
            applyModify(e, copy, attrMask);
            return null;
        });
    }

    @Override
    public void queryQp(IbvQpAttr out) throws VerbsException {
        checkAlive();
        IbvQpAttr snapshot = rnic.call(e -> snapshot());
        copy(snapshot, out);
    }

    @Override
    public void postSend(IbvSendWr wr) throws VerbsException {
        IbvQpState s = state;
        if (destroyed || (s != IbvQpState.RTS && s != IbvQpState.ERR)) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + qpNum + " is " + s
                    + (destroyed ? " (destroyed)" : "") + ", not RTS");
        }
        sq.post(wr, rnic.mrs);
        rnic.doorbell(this);
    }

    @Override
    public void postRecv(IbvRecvWr wr) throws VerbsException {
        if (srq != null) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + qpNum + " uses an SRQ");
        }
        if (destroyed || state == IbvQpState.RESET) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + qpNum + " is "
                    + (destroyed ? "destroyed" : "in RESET"));
        }
        rq.post(wr);
        rnic.doorbell(this);
    }

    @Override
    public VerbsCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        rnic.destroyQp(this);
        pd.forget(this);
    }

    boolean isDestroyed() {
        return destroyed;
    }

    private void checkAlive() throws VerbsException {
        if (destroyed) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + qpNum + " destroyed");
        }
    }

    // ---- engine thread ----

    /** Engine: picks up posted WRs, flushes in ERR, runs the requester and responder. */
    int service(Engine e, long now) {
        int work = 0;
        long posted = sqPosted;
        while (sq.published(posted)) {
            posted++;
        }
        if (posted != sqPosted) {
            sqPosted = posted;
            work++;
        }
        if (cqBroken && state != IbvQpState.ERR) {
            enterError(e);
        }
        IbvQpState s = state;
        if (s == IbvQpState.ERR) {
            return work + flushQueues();
        }
        if (s == IbvQpState.RTS) {
            work += requester.service(e, now);
        }
        if (s == IbvQpState.RTR || s == IbvQpState.RTS) {
            work += responder.service(e);
        }
        return work;
    }

    /** Any thread: rings the doorbell; @return true if it was not rung, so the caller must queue the QP */
    boolean ring() {
        return !rung && RUNG.compareAndSet(this, false, true);
    }

    /** Engine: the doorbell was taken (before the queues are read again). */
    void unring() {
        rung = false;
    }

    /**
     * Engine, after a visit that did no work: whether the QP still needs visits without a new event
     * (a doorbell, a packet or a command activates it): WRs not yet sent, a timer (retransmit, RNR,
     * pacing), responses due, or a broken CQ to act on.
     */
    boolean needsService() {
        IbvQpState s = state;
        if (s == IbvQpState.ERR) {
            return false;
        }
        if (cqBroken) {
            return true;
        }
        return s == IbvQpState.RTS && requester.busy() || (s == IbvQpState.RTR || s == IbvQpState.RTS) && responder.busy();
    }

    /** Engine: next timer deadline in nanoTime, 0 for none. */
    long deadline() {
        return state == IbvQpState.RTS ? requester.deadline() : 0;
    }

    /**
     * Engine: whether a packet came along this QP's path, as rxe checks for connected QPs: from
     * the peer's address (its GID) to the local vNIC address and port the QP uses, and from the
     * peer's UDP port unless the device leaves source ports unchecked (real RoCE stacks pick them
     * per flow for ECMP entropy). A QP without a path (before RTR) accepts for its state check.
     */
    boolean onPath(InetSocketAddress source, InetSocketAddress destination) {
        InetSocketAddress r = remote;
        if (r == null) {
            return true;
        }
        if (source == null || destination == null || !r.getAddress().equals(source.getAddress())
                || destination.getPort() != localPort
                || !localAddress.equals(destination.getAddress())) {
            return false;
        }
        return !rnic.config.checkSourcePort() || source.getPort() == remotePort;
    }

    /** Engine: a validated packet addressed to this QP. */
    void onPacket(Engine e, RocePacket p, long now) {
        IbvQpState s = state;
        if (p.is(RcOpcode.REQUEST)) {
            if (s == IbvQpState.RTR || s == IbvQpState.RTS) {
                responder.onRequest(e, p);
            } else {
                counters.inc(VerbsCounter.DROP_BAD_STATE);
            }
        } else if (s == IbvQpState.RTS) {
            requester.onResponse(e, p, now);
        } else {
            counters.inc(VerbsCounter.DROP_BAD_STATE);
        }
    }

    /** Engine: the QP fails; every outstanding WR completes (the failed one with its error). */
    void enterError(Engine e) {
        state = IbvQpState.ERR;
        flushQueues();
    }

    private int flushQueues() {
        int n = requester.flush();
        responder.flush();
        if (rq != null) {
            while (rq.available()) {
                rq.take(flushScratch());
                completeRecv(flushScratch.wrId, IbvWcStatus.WR_FLUSH_ERR, IbvWcOpcode.RECV, 0, 0,
                        false, false);
                n++;
            }
        }
        return n;
    }

    private RecvWqe flushScratch;

    private RecvWqe flushScratch() {
        if (flushScratch == null) {
            flushScratch = new RecvWqe(rq.maxSge);
        }
        return flushScratch;
    }

    boolean recvAvailable() {
        return srq != null ? srq.ring.available() : rq.available();
    }

    void takeRecv(RecvWqe into) {
        if (srq != null) {
            srq.ring.take(into);
        } else {
            rq.take(into);
        }
    }

    void completeSend(SendWqe w, IbvWcStatus status) {
        if (status == IbvWcStatus.SUCCESS && !sigAll && (w.flags & IbvSendFlags.SIGNALED) == 0) {
            return;
        }
        IbvWcOpcode op;
        switch (w.opcode) {
            case RDMA_READ:
                op = IbvWcOpcode.RDMA_READ;
                break;
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                op = IbvWcOpcode.RDMA_WRITE;
                break;
            default:
                op = IbvWcOpcode.SEND;
                break;
        }
        if (!sendCq.push(w.wrId, status, op, w.length, 0, 0, qpNum, 0, false)
                && !sendCq.isClosed()) {
            cqBroken = true;
        }
    }

    void completeRecv(long wrId, IbvWcStatus status, IbvWcOpcode op, int byteLen, int imm,
            boolean withImm, boolean solicited) {
        if (!recvCq.push(wrId, status, op, byteLen, imm, withImm ? IbvWc.WITH_IMM : 0, qpNum,
                destQpn, solicited) && !recvCq.isClosed()) {
            cqBroken = true;
        }
    }

    private void applyModify(Engine e, IbvQpAttr a, int mask) throws VerbsException {
        IbvQpState cur = state;
        IbvQpState target = (mask & IbvQpAttr.STATE) != 0 ? a.qpState() : cur;
        if (target == null) {
            throw new VerbsException(VerbsException.EINVAL, "no target state");
        }
        int required;
        int optional;
        if (target == IbvQpState.RESET || target == IbvQpState.ERR) {
            required = 0;
            optional = 0;
        } else if (cur == IbvQpState.RESET && target == IbvQpState.INIT) {
            required = IbvQpAttr.PKEY_INDEX | IbvQpAttr.PORT | IbvQpAttr.ACCESS_FLAGS;
            optional = 0;
        } else if (cur == IbvQpState.INIT && target == IbvQpState.INIT) {
            required = 0;
            optional = IbvQpAttr.PKEY_INDEX | IbvQpAttr.PORT | IbvQpAttr.ACCESS_FLAGS;
        } else if (cur == IbvQpState.INIT && target == IbvQpState.RTR) {
            required = IbvQpAttr.MASK_RTR & ~IbvQpAttr.STATE;
            optional = IbvQpAttr.ACCESS_FLAGS | IbvQpAttr.PKEY_INDEX;
        } else if (cur == IbvQpState.RTR && target == IbvQpState.RTS) {
            required = IbvQpAttr.MASK_RTS & ~IbvQpAttr.STATE;
            optional = IbvQpAttr.ACCESS_FLAGS | IbvQpAttr.MIN_RNR_TIMER | IbvQpAttr.RATE_LIMIT;
        } else if (cur == IbvQpState.RTS && target == IbvQpState.RTS) {
            required = 0;
            optional = IbvQpAttr.ACCESS_FLAGS | IbvQpAttr.MIN_RNR_TIMER | IbvQpAttr.RATE_LIMIT;
        } else {
            throw new VerbsException(VerbsException.EINVAL,
                    "illegal QP transition " + cur + " -> " + target);
        }
        if ((mask & required) != required) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + cur + " -> " + target
                    + ": missing attributes " + QpAttrMasks.names(required & ~mask));
        }
        int allowed = required | optional | IbvQpAttr.STATE | IbvQpAttr.CUR_STATE;
        if ((mask & ~allowed) != 0) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + cur + " -> " + target
                    + ": attributes not allowed " + QpAttrMasks.names(mask & ~allowed));
        }
        validate(a, mask);

        if ((mask & IbvQpAttr.ACCESS_FLAGS) != 0) {
            accessFlags = a.qpAccessFlags();
        }
        if ((mask & IbvQpAttr.MIN_RNR_TIMER) != 0) {
            minRnrTimer = a.minRnrTimer();
        }
        if (target == IbvQpState.RESET) {
            requester.reset();
            rateLimit = 0;
            requester.rateLimit(0);
            responder.reset();
            if (rq != null) {
                while (rq.available()) {
                    rq.discard();
                }
            }
            state = IbvQpState.RESET;
            return;
        }
        if (target == IbvQpState.ERR) {
            if (cur != IbvQpState.ERR) {
                enterError(e);
            }
            return;
        }
        if (target == IbvQpState.RTR) {
            pathMtu = a.pathMtu();
            mtu = pathMtu.bytes();
            mtuShift = Integer.numberOfTrailingZeros(mtu);
            destQpn = a.destQpNum();
            rqPsn = a.rqPsn() & Psn.MASK;
            maxDestRdAtomic = a.maxDestRdAtomic();
            ah.copyFrom(a.ahAttr());
            portIndex = ah.sgidIndex();
            port = rnic.port(portIndex);
            localAddress = rnic.vnicAddress(ah.sgidIndex());
            localIp = localAddress.getAddress();
            localPort = port.localAddress().getPort();
            remote = new InetSocketAddress(ah.dgid(), ah.udpPort());
            remoteIp = ah.dgid().getAddress();
            remotePort = ah.udpPort();
            responder.start(rqPsn);
        } else if (target == IbvQpState.RTS && cur == IbvQpState.RTR) {
            sqPsn = a.sqPsn() & Psn.MASK;
            timeout = a.timeout();
            retryCnt = a.retryCnt();
            rnrRetry = a.rnrRetry();
            maxRdAtomic = a.maxRdAtomic();
            requester.start(rnic.config, sqPsn);
        }
        if ((mask & IbvQpAttr.RATE_LIMIT) != 0) {
            rateLimit = a.rateLimit();
            requester.rateLimit(rateLimit);
        }
        state = target;
    }

    private void validate(IbvQpAttr a, int mask) throws VerbsException {
        if ((mask & IbvQpAttr.RATE_LIMIT) != 0 && a.rateLimit() != 0
                && (a.rateLimit() < Requester.RATE_LIMIT_MIN_KBPS || a.rateLimit() > Requester.RATE_LIMIT_MAX_KBPS)) {
            throw invalid("rate limit (kbit/s, 0 or " + Requester.RATE_LIMIT_MIN_KBPS + ".."
                    + Requester.RATE_LIMIT_MAX_KBPS + ")", a.rateLimit());
        }
        if ((mask & IbvQpAttr.ACCESS_FLAGS) != 0 && (a.qpAccessFlags() & ~IbvAccess.ALL) != 0) {
            throw invalid("access flags", a.qpAccessFlags());
        }
        if ((mask & IbvQpAttr.PORT) != 0 && a.portNum() != 1) {
            throw invalid("port (only port 1 exists)", a.portNum());
        }
        if ((mask & IbvQpAttr.PKEY_INDEX) != 0 && a.pkeyIndex() != 0) {
            throw invalid("P_Key index (only index 0 exists)", a.pkeyIndex());
        }
        if ((mask & IbvQpAttr.PATH_MTU) != 0 && a.pathMtu() == null) {
            throw new VerbsException(VerbsException.EINVAL, "no path MTU");
        }
        if ((mask & IbvQpAttr.AV) != 0) {
            IbvAhAttr av = a.ahAttr();
            InetAddress dgid = av.dgid();
            if (dgid == null) {
                throw new VerbsException(VerbsException.EINVAL, "address vector without dgid");
            }
            if (av.sgidIndex() < 0 || av.sgidIndex() >= rnic.vnicCount()) {
                throw invalid("sgid index", av.sgidIndex());
            }
            String mtuProblem = (mask & IbvQpAttr.PATH_MTU) != 0
                    ? rnic.pathMtuProblem(av.sgidIndex(), a.pathMtu()) : null;
            if (mtuProblem != null) {
                throw new VerbsException(VerbsException.EINVAL, mtuProblem);
            }
            if ((dgid instanceof Inet4Address)
                    != (rnic.vnicAddress(av.sgidIndex()) instanceof Inet4Address)) {
                throw new VerbsException(VerbsException.EINVAL,
                        "dgid and local vNIC are of different address families");
            }
            if (av.udpPort() < 1 || av.udpPort() > 65535) {
                throw invalid("UDP port", av.udpPort());
            }
        }
        if ((mask & IbvQpAttr.DEST_QPN) != 0 && (a.destQpNum() & ~Psn.MASK) != 0) {
            throw invalid("destination QPN", a.destQpNum());
        }
        if ((mask & IbvQpAttr.MAX_DEST_RD_ATOMIC) != 0
                && (a.maxDestRdAtomic() < 0 || a.maxDestRdAtomic() > MAX_RD_ATOMIC)) {
            throw invalid("max_dest_rd_atomic", a.maxDestRdAtomic());
        }
        if ((mask & IbvQpAttr.MAX_QP_RD_ATOMIC) != 0
                && (a.maxRdAtomic() < 0 || a.maxRdAtomic() > MAX_RD_ATOMIC)) {
            throw invalid("max_rd_atomic", a.maxRdAtomic());
        }
        if ((mask & IbvQpAttr.MIN_RNR_TIMER) != 0 && (a.minRnrTimer() & ~0x1F) != 0) {
            throw invalid("min_rnr_timer", a.minRnrTimer());
        }
        if ((mask & IbvQpAttr.TIMEOUT) != 0 && (a.timeout() & ~0x1F) != 0) {
            throw invalid("timeout", a.timeout());
        }
        if ((mask & IbvQpAttr.RETRY_CNT) != 0 && (a.retryCnt() & ~7) != 0) {
            throw invalid("retry_cnt", a.retryCnt());
        }
        if ((mask & IbvQpAttr.RNR_RETRY) != 0 && (a.rnrRetry() & ~7) != 0) {
            throw invalid("rnr_retry", a.rnrRetry());
        }
    }

    private static VerbsException invalid(String what, int value) {
        return new VerbsException(VerbsException.EINVAL, "invalid " + what + ": " + value);
    }

    private IbvQpAttr snapshot() {
        IbvQpAttr o = new IbvQpAttr()
                .qpState(state)
                .qpAccessFlags(accessFlags)
                .pathMtu(pathMtu)
                .destQpNum(destQpn)
                .rqPsn(rqPsn)
                .sqPsn(sqPsn)
                .timeout(timeout)
                .retryCnt(retryCnt)
                .rnrRetry(rnrRetry)
                .minRnrTimer(minRnrTimer)
                .maxRdAtomic(maxRdAtomic)
                .maxDestRdAtomic(maxDestRdAtomic)
                .rateLimit(rateLimit);
        o.ahAttr().copyFrom(ah);
        return o;
    }

    private static IbvQpAttr copy(IbvQpAttr a, IbvQpAttr o) {
        o.qpState(a.qpState())
                .pathMtu(a.pathMtu())
                .qpAccessFlags(a.qpAccessFlags())
                .pkeyIndex(a.pkeyIndex())
                .portNum(a.portNum())
                .rqPsn(a.rqPsn())
                .sqPsn(a.sqPsn())
                .destQpNum(a.destQpNum())
                .timeout(a.timeout())
                .retryCnt(a.retryCnt())
                .rnrRetry(a.rnrRetry())
                .minRnrTimer(a.minRnrTimer())
                .maxRdAtomic(a.maxRdAtomic())
                .maxDestRdAtomic(a.maxDestRdAtomic())
                .rateLimit(a.rateLimit());
        o.ahAttr().copyFrom(a.ahAttr());
        return o;
    }

    @Override
    public String toString() {
        return "SoftQp[" + qpNum + " " + state + "]";
    }
}
