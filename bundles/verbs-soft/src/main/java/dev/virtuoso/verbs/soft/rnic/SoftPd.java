package dev.virtuoso.verbs.soft.rnic;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.VerbsException;

/** A protection domain: owns its regions, QPs and SRQs, and destroys them on close. */
final class SoftPd implements IbvPd {
    /** Largest SGE count per WR. */
    static final int MAX_SGE = 32;
    /** Largest inline payload. */
    static final int MAX_INLINE = 4096;

    final SoftContext context;
    final SoftRnic rnic;
    private final Set<SoftMr> mrs = new LinkedHashSet<>();
    private final Set<SoftQp> qps = new LinkedHashSet<>();
    private final Set<SoftSrq> srqs = new LinkedHashSet<>();
    private boolean closed;

    SoftPd(SoftContext context) {
        this.context = context;
        this.rnic = context.rnic;
    }

    @Override
    public IbvMr regMr(ByteBuffer buffer, int access) throws VerbsException {
        if (buffer == null || !buffer.isDirect()) {
            throw new VerbsException(VerbsException.EINVAL, "only direct buffers can be registered");
        }
        if (!buffer.hasRemaining()) {
            throw new VerbsException(VerbsException.EINVAL, "empty range");
        }
        if ((access & ~IbvAccess.ALL) != 0) {
            throw new VerbsException(VerbsException.EINVAL, "unknown access flags: " + access);
        }
        boolean remoteWrite = (access & (IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_ATOMIC)) != 0;
        if (remoteWrite && (access & IbvAccess.LOCAL_WRITE) == 0) {
            throw new VerbsException(VerbsException.EINVAL,
                    "remote write or atomic access requires local write");
        }
        if (buffer.isReadOnly() && (access & IbvAccess.LOCAL_WRITE) != 0) {
            throw new VerbsException(VerbsException.EINVAL, "read-only buffer with write access");
        }
        ByteBuffer memory = buffer.slice();
        synchronized (this) {
            checkOpen();
            SoftMr mr = rnic.mrs.register(this, memory, access);
            mrs.add(mr);
            return mr;
        }
    }

    void deregister(SoftMr mr) {
        synchronized (this) {
            mrs.remove(mr);
        }
        if (rnic.mrs.deregister(mr)) {
            rnic.quiesce();
        }
    }

    @Override
    public IbvQp createQp(IbvQpInitAttr attr) throws VerbsException {
        SoftCq send = ownCq(attr.sendCq(), "send");
        SoftCq recv = ownCq(attr.recvCq(), "receive");
        SoftSrq srq = null;
        if (attr.srq() != null) {
            if (!(attr.srq() instanceof SoftSrq) || ((SoftSrq) attr.srq()).pd.rnic != rnic) {
                throw new VerbsException(VerbsException.EINVAL, "SRQ of another device");
            }
            srq = (SoftSrq) attr.srq();
        }
        int maxWr = rnic.config.maxQueueWr();
        check(attr.maxSendWr(), 1, maxWr, "max_send_wr");
        if (srq == null) {
            check(attr.maxRecvWr(), 1, maxWr, "max_recv_wr");
            check(attr.maxRecvSge(), 0, MAX_SGE, "max_recv_sge");
        }
        check(attr.maxSendSge(), 0, MAX_SGE, "max_send_sge");
        check(attr.maxInlineData(), 0, MAX_INLINE, "max_inline_data");
        synchronized (this) {
            checkOpen();
        }
        SoftQp qp = rnic.createQp(this, send, recv, srq, attr.maxSendWr(), attr.maxRecvWr(),
                Math.max(1, attr.maxSendSge()), Math.max(1, attr.maxRecvSge()),
                attr.maxInlineData(), attr.sqSigAll());
        synchronized (this) {
            if (!closed) {
                qps.add(qp);
                return qp;
            }
        }
        qp.close();
        throw new VerbsException(VerbsException.EINVAL, "PD closed");
    }

    private SoftCq ownCq(IbvCq cq, String which) throws VerbsException {
        if (!(cq instanceof SoftCq) || ((SoftCq) cq).context.rnic != rnic) {
            throw new VerbsException(VerbsException.EINVAL, "the " + which
                    + " CQ is missing or belongs to another device");
        }
        SoftCq c = (SoftCq) cq;
        if (c.isClosed()) {
            throw new VerbsException(VerbsException.EINVAL, "the " + which + " CQ is destroyed");
        }
        return c;
    }

    @Override
    public IbvSrq createSrq(int maxWr, int maxSge) throws VerbsException {
        if (!rnic.config.sharedReceiveQueues()) {
            throw new VerbsException(VerbsException.EOPNOTSUPP, "device " + rnic.name()
                    + " is configured without shared receive queues (max_srq = 0)");
        }
        check(maxWr, 1, rnic.config.maxQueueWr(), "SRQ max_wr");
        check(maxSge, 1, MAX_SGE, "SRQ max_sge");
        synchronized (this) {
            checkOpen();
            SoftSrq s = new SoftSrq(this, maxWr, maxSge);
            srqs.add(s);
            return s;
        }
    }

    synchronized void forget(SoftQp qp) {
        qps.remove(qp);
    }

    synchronized void forget(SoftSrq srq) {
        srqs.remove(srq);
    }

    private static void check(int v, int min, int max, String what) throws VerbsException {
        if (v < min || v > max) {
            throw new VerbsException(VerbsException.EINVAL, what + " must be in [" + min + ", "
                    + max + "]: " + v);
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "PD closed");
        }
    }

    @Override
    public void close() {
        List<SoftQp> q;
        List<SoftSrq> s;
        List<SoftMr> m;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            q = new ArrayList<>(qps);
            s = new ArrayList<>(srqs);
            m = new ArrayList<>(mrs);
        }
        q.forEach(SoftQp::close);
        s.forEach(SoftSrq::close);
        m.forEach(SoftMr::close);
        context.forget(this);
    }
}
