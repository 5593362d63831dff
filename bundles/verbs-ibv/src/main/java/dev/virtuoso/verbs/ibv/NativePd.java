package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;

/** A protection domain; closing it destroys its QPs, then SRQs, then MRs. */
final class NativePd implements IbvPd {
    /** enum ibv_qp_type: IBV_QPT_RC. */
    private static final int QPT_RC = 2;

    final NativeContext context;
    final MemorySegment pd;
    private final OwnedObjects children = new OwnedObjects(VerbsException.EINVAL, "protection domain closed");

    NativePd(NativeContext context, MemorySegment pd) {
        this.context = context;
        this.pd = pd;
    }

    @Override
    public IbvMr regMr(ByteBuffer buffer, int access) throws VerbsException {
        if (buffer == null || !buffer.isDirect()) {
            throw new VerbsException(VerbsException.EINVAL, "ibv_reg_mr needs a direct buffer");
        }
        if (!buffer.hasRemaining()) {
            throw new VerbsException(VerbsException.EINVAL, "ibv_reg_mr of an empty range");
        }
        // zero copy: the application's memory itself, position..limit
        MemorySegment memory = MemorySegment.ofBuffer(buffer);
        MemorySegment mr = LibIbverbs.create("ibv_reg_mr",
                (arena, errno) -> (MemorySegment) context.lib.regMr.invokeExact(errno, pd, memory, memory.byteSize(),
                        access));
        MemorySegment m = mr.reinterpret(Structs.MR.byteSize());
        NativeMr r = new NativeMr(context.lib, mr, buffer, memory.address(), (int) memory.byteSize(),
                m.get(JAVA_INT, Structs.offset(Structs.MR, "lkey")), m.get(JAVA_INT, Structs.offset(Structs.MR, "rkey")),
                access);
        return children.adopt(r);
    }

    @Override
    public IbvQp createQp(IbvQpInitAttr attr) throws VerbsException {
        NativeCq send = nativeCq(attr.sendCq());
        NativeCq recv = nativeCq(attr.recvCq());
        if (attr.srq() != null && !(attr.srq() instanceof NativeSrq)) {
            throw new VerbsException(VerbsException.EINVAL, "SRQ of another provider");
        }
        NativeSrq srq = (NativeSrq) attr.srq();
        MemorySegment qp = LibIbverbs.create("ibv_create_qp", (arena, errno) -> {
            MemorySegment a = arena.allocate(Structs.QP_INIT_ATTR);
            a.set(ADDRESS, Structs.offset(Structs.QP_INIT_ATTR, "send_cq"), send.cq);
            a.set(ADDRESS, Structs.offset(Structs.QP_INIT_ATTR, "recv_cq"), recv.cq);
            a.set(ADDRESS, Structs.offset(Structs.QP_INIT_ATTR, "srq"),
                    srq == null ? MemorySegment.NULL : srq.srq);
            long cap = Structs.offset(Structs.QP_INIT_ATTR, "cap");
            a.set(JAVA_INT, cap, attr.maxSendWr());
            a.set(JAVA_INT, cap + 4, srq == null ? attr.maxRecvWr() : 0);
            a.set(JAVA_INT, cap + 8, attr.maxSendSge());
            a.set(JAVA_INT, cap + 12, srq == null ? attr.maxRecvSge() : 0);
            a.set(JAVA_INT, cap + 16, attr.maxInlineData());
            a.set(JAVA_INT, Structs.offset(Structs.QP_INIT_ATTR, "qp_type"), QPT_RC);
            a.set(JAVA_INT, Structs.offset(Structs.QP_INIT_ATTR, "sq_sig_all"), attr.sqSigAll() ? 1 : 0);
            return (MemorySegment) context.lib.createQp.invokeExact(errno, pd, a);
        });
        return children.adopt(new NativeQp(context, qp, Math.max(1, attr.maxSendSge()), Math.max(1, attr.maxRecvSge())));
    }

    private static NativeCq nativeCq(IbvCq cq) throws VerbsException {
        if (!(cq instanceof NativeCq n)) {
            throw new VerbsException(VerbsException.EINVAL, "QP needs a CQ of this provider: " + cq);
        }
        return n;
    }

    @Override
    public IbvSrq createSrq(int maxWr, int maxSge) throws VerbsException {
        if (context.queryDevice().maxSrq() == 0) {
            throw new VerbsException(VerbsException.EOPNOTSUPP, "device " + context.deviceName() + " has no SRQ");
        }
        MemorySegment srq = LibIbverbs.create("ibv_create_srq", (arena, errno) -> {
            MemorySegment a = arena.allocate(Structs.SRQ_INIT_ATTR);
            long off = Structs.offset(Structs.SRQ_INIT_ATTR, "attr");
            a.set(JAVA_INT, off, maxWr);
            a.set(JAVA_INT, off + 4, maxSge);
            return (MemorySegment) context.lib.createSrq.invokeExact(errno, pd, a);
        });
        return children.adopt(new NativeSrq(context, srq, Math.max(1, maxSge)));
    }

    @Override
    public void close() {
        if (!children.closeAll(List.of(NativeQp.class, NativeSrq.class, NativeMr.class))) {
            return;
        }
        LibIbverbs.destroy(context.lib.deallocPd, pd, "ibv_dealloc_pd");
    }
}
