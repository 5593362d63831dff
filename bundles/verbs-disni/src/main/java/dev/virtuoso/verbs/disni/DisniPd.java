package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import com.ibm.disni.verbs.SVCRegMr;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.VerbsException;

/** A protection domain allocated through DiSNI; owns its regions and QPs. */
final class DisniPd implements IbvPd {
    private static final System.Logger LOG = System.getLogger(DisniPd.class.getName());

    private final DisniContext ctx;
    final com.ibm.disni.verbs.IbvPd pd;
    private final Set<DisniMr> mrs = ConcurrentHashMap.newKeySet();
    private final Set<DisniQp> qps = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    DisniPd(DisniContext ctx, com.ibm.disni.verbs.IbvPd pd) {
        this.ctx = ctx;
        this.pd = pd;
    }

    DisniContext context() {
        return ctx;
    }

    @Override
    public IbvMr regMr(ByteBuffer buffer, int access) throws VerbsException {
        checkOpen();
        if (buffer == null || !buffer.isDirect()) {
            throw new VerbsException(VerbsException.EINVAL, "regMr needs a direct buffer");
        }
        if (!buffer.hasRemaining()) {
            throw new VerbsException(VerbsException.EINVAL, "regMr: empty range");
        }
        if ((access & ~IbvAccess.ALL) != 0) {
            throw new VerbsException(VerbsException.EINVAL, "regMr: unknown access flags " + access);
        }
        if ((access & IbvAccess.REMOTE_WRITE) != 0 && (access & IbvAccess.LOCAL_WRITE) == 0) {
            throw new VerbsException(VerbsException.EINVAL, "regMr: REMOTE_WRITE requires LOCAL_WRITE");
        }
        // DiSNI registers [address, address + capacity) of the buffer it is given: a slice makes
        // that the caller's position..limit
        ByteBuffer range = buffer.slice();
        SVCRegMr call = null;
        try {
            call = pd.regMr(range, Codes.access(access)).execute();
            DisniMr mr = new DisniMr(this, call.getMr(), range, access);
            mrs.add(mr);
            return mr;
        } catch (IOException e) {
            throw Errors.verbs("ibv_reg_mr", e);
        } finally {
            if (call != null) {
                call.free();
            }
        }
    }

    @Override
    public IbvQp createQp(IbvQpInitAttr attr) throws VerbsException {
        checkOpen();
        DisniQp qp = DisniQp.create(this, attr);
        qps.add(qp);
        return qp;
    }

    /**
     * Not available: DiSNI 2.1 has no {@code ibv_create_srq} (its QP creation has no SRQ either).
     *
     * @throws VerbsException always, {@link VerbsException#EOPNOTSUPP}
     */
    @Override
    public IbvSrq createSrq(int maxWr, int maxSge) throws VerbsException {
        throw new VerbsException(VerbsException.EOPNOTSUPP,
                "shared receive queues are not supported by DiSNI 2.1 (no ibv_create_srq)");
    }

    /** @return the live region containing [addr, addr+len), or null */
    DisniMr regionCovering(long addr, long len) {
        for (DisniMr mr : mrs) {
            if (mr.covers(addr, len)) {
                return mr;
            }
        }
        return null;
    }

    void forget(DisniMr mr) {
        mrs.remove(mr);
    }

    void forget(DisniQp qp) {
        qps.remove(qp);
    }

    boolean isClosed() {
        return closed.get();
    }

    private void checkOpen() throws VerbsException {
        if (closed.get()) {
            throw new VerbsException(VerbsException.EINVAL, "PD is closed");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (DisniQp qp : List.copyOf(qps)) {
            qp.close();
        }
        for (DisniMr mr : List.copyOf(mrs)) {
            mr.close();
        }
        ctx.forget(this);
        try {
            pd.deallocPd();
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "ibv_dealloc_pd failed", e);
        }
    }
}
