package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.virtuoso.spi.verbs.IbvAhAttr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An RC queue pair. Posting fills a preallocated {@code ibv_send_wr}/{@code ibv_recv_wr} with its
 * SGE array and calls the provider's post function from {@code context->ops}: no allocation per
 * call. Each direction has its own lock (uncontended with one owner thread per direction).
 */
final class NativeQp implements IbvQp {
    private static final long QP_NUM = Structs.offset(Structs.QP_HEAD, "qp_num");
    private static final IbvQpState[] STATES = IbvQpState.values();

    private final NativeContext context;
    private final MemorySegment qp;
    private final int qpNum;
    private final Arena arena = Arena.ofShared();
    private final WorkRequests.Send send;
    private final WorkRequests.Recv recv;
    private final MemorySegment attr;
    private final MemorySegment initAttr;
    private volatile boolean closed;

    NativeQp(NativeContext context, MemorySegment qp, int maxSendSge, int maxRecvSge) {
        this.context = context;
        this.qp = qp;
        this.qpNum = qp.reinterpret(Structs.QP_HEAD.byteSize()).get(JAVA_INT, QP_NUM);
        this.send = new WorkRequests.Send(arena, maxSendSge);
        this.recv = new WorkRequests.Recv(arena, maxRecvSge);
        this.attr = arena.allocate(Structs.QP_ATTR);
        this.initAttr = arena.allocate(Structs.QP_INIT_ATTR);
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public IbvQpState state() {
        IbvQpAttr out = new IbvQpAttr();
        try {
            queryQp(out);
        } catch (VerbsException e) {
            return IbvQpState.ERR;
        }
        return out.qpState();
    }

    @Override
    public synchronized void modifyQp(IbvQpAttr a, int mask) throws VerbsException {
        checkOpen();
        if ((mask & IbvQpAttr.RATE_LIMIT) != 0) {
            // struct ibv_qp_attr's rate_limit is not bound here; queryDevice reports no pacing
            throw new VerbsException(VerbsException.EOPNOTSUPP, "packet pacing (RATE_LIMIT) is not supported by this "
                    + "provider");
        }
        // IBA's field widths; struct ibv_qp_attr has a byte each, and kernels pass larger values on
        // (rxe keeps retry_cnt 8, a NIC's 3-bit field would wrap it to 0): refuse them here
        checkRange("retry_cnt", a.retryCnt(), 7);
        checkRange("rnr_retry", a.rnrRetry(), 7);
        checkRange("timeout", a.timeout(), 31);
        checkRange("min_rnr_timer", a.minRnrTimer(), 31);
        attr.fill((byte) 0);
        attr.set(JAVA_INT, off("qp_state"), a.qpState().ordinal());
        attr.set(JAVA_INT, off("path_mtu"), a.pathMtu().ordinal() + 1);
        attr.set(JAVA_INT, off("qp_access_flags"), a.qpAccessFlags());
        attr.set(JAVA_INT, off("rq_psn"), a.rqPsn());
        attr.set(JAVA_INT, off("sq_psn"), a.sqPsn());
        attr.set(JAVA_INT, off("dest_qp_num"), a.destQpNum());
        attr.set(JAVA_SHORT, off("pkey_index"), (short) a.pkeyIndex());
        attr.set(JAVA_BYTE, off("max_rd_atomic"), (byte) a.maxRdAtomic());
        attr.set(JAVA_BYTE, off("max_dest_rd_atomic"), (byte) a.maxDestRdAtomic());
        attr.set(JAVA_BYTE, off("min_rnr_timer"), (byte) a.minRnrTimer());
        attr.set(JAVA_BYTE, off("port_num"), (byte) a.portNum());
        attr.set(JAVA_BYTE, off("timeout"), (byte) a.timeout());
        attr.set(JAVA_BYTE, off("retry_cnt"), (byte) a.retryCnt());
        attr.set(JAVA_BYTE, off("rnr_retry"), (byte) a.rnrRetry());
        if ((mask & IbvQpAttr.AV) != 0) {
            writeAh(a.ahAttr(), a.portNum());
        }
        int rc;
        try {
            rc = (int) context.lib.modifyQp.invokeExact(qp, attr, mask);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected("ibv_modify_qp", t);
        }
        if (rc != 0) {
            throw LibIbverbs.failure("ibv_modify_qp(" + a.qpState() + ", mask 0x" + Integer.toHexString(mask) + ")",
                    rc);
        }
    }

    private static void checkRange(String field, int value, int max) throws VerbsException {
        if (value < 0 || value > max) {
            throw new VerbsException(VerbsException.EINVAL, field + " " + value + " outside 0.." + max);
        }
    }

    /** RoCE: a global route to the peer's GID (IPv4-mapped for an IPv4 address). */
    private void writeAh(IbvAhAttr ah, int port) throws VerbsException {
        if (ah.dgid() == null) {
            throw new VerbsException(VerbsException.EINVAL, "RTR needs the peer's GID (ahAttr.dgid)");
        }
        long grh = off("ah_attr") + Structs.offset(Structs.AH_ATTR, "grh");
        attr.asSlice(grh, 16).copyFrom(MemorySegment.ofArray(gidOf(ah.dgid())));
        attr.set(JAVA_INT, grh + Structs.offset(Structs.GLOBAL_ROUTE, "flow_label"), ah.flowLabel());
        attr.set(JAVA_BYTE, grh + Structs.offset(Structs.GLOBAL_ROUTE, "sgid_index"), (byte) ah.sgidIndex());
        attr.set(JAVA_BYTE, grh + Structs.offset(Structs.GLOBAL_ROUTE, "hop_limit"), (byte) ah.hopLimit());
        attr.set(JAVA_BYTE, grh + Structs.offset(Structs.GLOBAL_ROUTE, "traffic_class"), (byte) ah.trafficClass());
        long ahOff = off("ah_attr");
        attr.set(JAVA_BYTE, ahOff + Structs.offset(Structs.AH_ATTR, "is_global"), (byte) 1);
        attr.set(JAVA_BYTE, ahOff + Structs.offset(Structs.AH_ATTR, "port_num"), (byte) port);
    }

    static byte[] gidOf(InetAddress ip) {
        byte[] a = ip.getAddress();
        if (a.length == 16) {
            return a;
        }
        byte[] gid = new byte[16];
        gid[10] = (byte) 0xff;
        gid[11] = (byte) 0xff;
        System.arraycopy(a, 0, gid, 12, 4);
        return gid;
    }

    private static long off(String member) {
        return Structs.offset(Structs.QP_ATTR, member);
    }

    @Override
    public synchronized void queryQp(IbvQpAttr out) throws VerbsException {
        checkOpen();
        attr.fill((byte) 0);
        int mask = IbvQpAttr.STATE | IbvQpAttr.PATH_MTU | IbvQpAttr.ACCESS_FLAGS | IbvQpAttr.PKEY_INDEX
                | IbvQpAttr.PORT | IbvQpAttr.AV | IbvQpAttr.TIMEOUT | IbvQpAttr.RETRY_CNT | IbvQpAttr.RNR_RETRY
                | IbvQpAttr.RQ_PSN | IbvQpAttr.SQ_PSN | IbvQpAttr.MAX_QP_RD_ATOMIC | IbvQpAttr.MAX_DEST_RD_ATOMIC
                | IbvQpAttr.MIN_RNR_TIMER | IbvQpAttr.DEST_QPN;
        int rc;
        try {
            rc = (int) context.lib.queryQp.invokeExact(qp, attr, mask, initAttr);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected("ibv_query_qp", t);
        }
        if (rc != 0) {
            throw LibIbverbs.failure("ibv_query_qp", rc);
        }
        int state = attr.get(JAVA_INT, off("qp_state"));
        int mtu = attr.get(JAVA_INT, off("path_mtu"));
        out.qpState(state >= 0 && state < STATES.length ? STATES[state] : IbvQpState.ERR)
                .pathMtu(mtu >= 1 && mtu <= 5 ? IbvMtu.values()[mtu - 1] : out.pathMtu())
                .qpAccessFlags(attr.get(JAVA_INT, off("qp_access_flags")))
                .pkeyIndex(Short.toUnsignedInt(attr.get(JAVA_SHORT, off("pkey_index"))))
                .portNum(u8("port_num")).rqPsn(attr.get(JAVA_INT, off("rq_psn")))
                .sqPsn(attr.get(JAVA_INT, off("sq_psn"))).destQpNum(attr.get(JAVA_INT, off("dest_qp_num")))
                .timeout(u8("timeout")).retryCnt(u8("retry_cnt")).rnrRetry(u8("rnr_retry"))
                .minRnrTimer(u8("min_rnr_timer")).maxRdAtomic(u8("max_rd_atomic"))
                .maxDestRdAtomic(u8("max_dest_rd_atomic"));
        long grh = off("ah_attr") + Structs.offset(Structs.AH_ATTR, "grh");
        byte[] gid = attr.asSlice(grh, 16).toArray(JAVA_BYTE);
        InetAddress v4 = IbvVerbsProvider.ipv4OfGid(gid);
        try {
            out.ahAttr().dgid(v4 != null ? v4 : InetAddress.getByAddress(gid))
                    .sgidIndex(Byte.toUnsignedInt(attr.get(JAVA_BYTE,
                            grh + Structs.offset(Structs.GLOBAL_ROUTE, "sgid_index"))))
                    .hopLimit(Byte.toUnsignedInt(attr.get(JAVA_BYTE,
                            grh + Structs.offset(Structs.GLOBAL_ROUTE, "hop_limit"))))
                    .trafficClass(Byte.toUnsignedInt(attr.get(JAVA_BYTE,
                            grh + Structs.offset(Structs.GLOBAL_ROUTE, "traffic_class"))))
                    .flowLabel(attr.get(JAVA_INT, grh + Structs.offset(Structs.GLOBAL_ROUTE, "flow_label")));
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private int u8(String member) {
        return Byte.toUnsignedInt(attr.get(JAVA_BYTE, off(member)));
    }

    @Override
    public void postSend(IbvSendWr wr) throws VerbsException {
        checkOpen();
        synchronized (send) {
            send.fill(wr);
            context.post(context.postSendFn, qp, send, "ibv_post_send");
        }
    }

    @Override
    public void postRecv(IbvRecvWr wr) throws VerbsException {
        checkOpen();
        synchronized (recv) {
            recv.fill(wr);
            context.post(context.postRecvFn, qp, recv, "ibv_post_recv");
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "QP destroyed");
        }
    }

    @Override
    public VerbsCounters counters() {
        return SysfsCounters.UNPUBLISHED;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        synchronized (send) {
            synchronized (recv) {
                try {
                    LibIbverbs.destroy(context.lib.destroyQp, qp, "ibv_destroy_qp");
                } finally {
                    arena.close();
                }
            }
        }
    }
}
