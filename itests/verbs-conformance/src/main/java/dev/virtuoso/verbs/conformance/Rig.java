package dev.virtuoso.verbs.conformance;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * Per-test fixture: contexts on A and B, a PD and a CQ on each, and helpers to register memory,
 * connect QP pairs, post work and wait for completions. Closes everything it made.
 */
public final class Rig implements AutoCloseable {
    /** Default wait for completions. */
    public static final long WAIT_MILLIS = 20_000;

    public final ConformanceEnvironment env;
    public final IbvContext a;
    public final IbvContext b;
    public final IbvPd pdA;
    public final IbvPd pdB;
    public final IbvCq cqA;
    public final IbvCq cqB;
    private final SplittableRandom random;
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();

    public Rig(ConformanceEnvironment env, long seed) throws Exception {
        this.env = env;
        this.random = new SplittableRandom(seed);
        a = env.openA();
        try {
            b = env.openB();
        } catch (Exception e) {
            a.close();
            throw e;
        }
        pdA = own(a.allocPd());
        pdB = own(b.allocPd());
        cqA = own(a.createCq(8192, null));
        cqB = own(b.createCq(8192, null));
    }

    /** Tracks a resource to close (in reverse order) at the end of the test. */
    public <T extends AutoCloseable> T own(T resource) {
        owned.push(resource);
        return resource;
    }

    /** @return the path MTU in bytes */
    public int mtu() {
        return env.mtu().bytes();
    }

    /** Allocates and registers a direct buffer. */
    public Mem mem(IbvPd pd, int size, int access) throws VerbsException {
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(1, size));
        return new Mem(buf, own(pd.regMr(buf, access)));
    }

    /** Connects a QP pair A-B with its own CQs (the rig's). */
    public QpPair connect(QpSettings s) throws VerbsException {
        return connect(s, null);
    }

    /** Connects a QP pair whose B end takes receives from {@code srqB}. */
    public QpPair connect(QpSettings s, IbvSrq srqB) throws VerbsException {
        IbvQp qa = createQp(pdA, cqA, null, s);
        IbvQp qb = createQp(pdB, cqB, srqB, s);
        int aToB = s.psnAtoB != null ? s.psnAtoB : random.nextInt(1 << 24);
        int bToA = s.psnBtoA != null ? s.psnBtoA : random.nextInt(1 << 24);
        toRts(qa, a, b, qb.qpNum(), aToB, bToA, s);
        toRts(qb, b, a, qa.qpNum(), bToA, aToB, s);
        return new QpPair(qa, qb);
    }

    /** Creates a QP in RESET. */
    public IbvQp createQp(IbvPd pd, IbvCq cq, IbvSrq srq, QpSettings s) throws VerbsException {
        IbvQpInitAttr init = new IbvQpInitAttr().sendCq(cq).recvCq(cq).srq(srq)
                .maxSendWr(s.maxSendWr).maxRecvWr(s.maxRecvWr).maxSendSge(s.maxSge)
                .maxRecvSge(s.maxSge).maxInlineData(s.maxInline);
        return own(pd.createQp(init));
    }

    /** RESET to INIT to RTR to RTS towards {@code peer}'s first vNIC, from the other context's. */
    public void toRts(IbvQp qp, IbvContext peer, int peerQpn, int sqPsn, int rqPsn, QpSettings s)
            throws VerbsException {
        toRts(qp, peer == b ? a : b, peer, peerQpn, sqPsn, rqPsn, s);
    }

    /**
     * The source GID index of a path from {@code local}'s first vNIC: that vNIC's own RoCEv2 GID
     * index, not 0 (on Linux RoCE devices index 0 is the IPv6 link-local GID; rxe lists the IPv4
     * addresses from index 1).
     */
    public static int sgidIndex(IbvContext local) {
        return local.vnics().get(0).gidIndex();
    }

    /** RESET to INIT to RTR to RTS from {@code local}'s first vNIC towards {@code peer}'s first vNIC. */
    public void toRts(IbvQp qp, IbvContext local, IbvContext peer, int peerQpn, int sqPsn, int rqPsn,
            QpSettings s) throws VerbsException {
        IbvQpAttr attr = new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(s.access);
        qp.modifyQp(attr, IbvQpAttr.MASK_INIT);
        attr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(env.mtu()).destQpNum(peerQpn)
                .rqPsn(rqPsn).maxDestRdAtomic(s.maxRdAtomic).minRnrTimer(s.minRnrTimer);
        attr.ahAttr().dgid(peer.vnics().get(0).address()).sgidIndex(sgidIndex(local))
                .udpPort(peer.udpPort());
        qp.modifyQp(attr, IbvQpAttr.MASK_RTR);
        attr = new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(sqPsn).timeout(s.timeout)
                .retryCnt(s.retryCnt).rnrRetry(s.rnrRetry).maxRdAtomic(s.maxRdAtomic);
        qp.modifyQp(attr, IbvQpAttr.MASK_RTS);
    }

    /** Builds a send WR with one SGE (none when {@code len} is 0). */
    public static IbvSendWr wr(long id, IbvWrOpcode op, Mem local, int off, int len,
            Mem remote, int remoteOff) {
        IbvSendWr w = new IbvSendWr().wrId(id).opcode(op).sendFlags(IbvSendFlags.SIGNALED);
        if (len > 0) {
            w.numSge(1).sge(0).set(local.addr(off), len, local.mr().lkey());
        } else {
            w.numSge(0);
        }
        if (remote != null) {
            w.remoteAddr(remote.addr(remoteOff)).rkey(remote.mr().rkey());
        }
        return w;
    }

    /** Builds a receive WR with one SGE over {@code [off, off+len)} of {@code m}. */
    public static IbvRecvWr recv(long id, Mem m, int off, int len) {
        IbvRecvWr w = new IbvRecvWr().wrId(id);
        w.numSge(1).sge(0).set(m.addr(off), len, m.mr().lkey());
        return w;
    }

    /**
     * Polls until {@code n} completions arrived or the time is up.
     *
     * @return copies of the completions, in CQ order (fewer than n on timeout)
     */
    public static List<IbvWc> await(IbvCq cq, int n, long timeoutMillis) throws VerbsException {
        List<IbvWc> out = new ArrayList<>(Math.min(n, 256));
        IbvWc[] wcs = new IbvWc[64];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWc();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (out.size() < n) {
            int got = cq.pollCq(wcs, Math.min(wcs.length, n - out.size()));
            for (int i = 0; i < got; i++) {
                out.add(new IbvWc().copyFrom(wcs[i]));
            }
            if (got == 0) {
                if (System.nanoTime() - deadline > 0) {
                    break;
                }
                LockSupport.parkNanos(20_000);
            }
        }
        return out;
    }

    /** {@link #await} with the default timeout, failing if fewer than n arrive. */
    public static List<IbvWc> expect(IbvCq cq, int n) throws VerbsException {
        List<IbvWc> got = await(cq, n, WAIT_MILLIS);
        if (got.size() < n) {
            throw new AssertionError("expected " + n + " completions, got " + got.size() + ": "
                    + got);
        }
        return got;
    }

    /** @return completions arriving within {@code millis} (for "nothing more" checks) */
    public static List<IbvWc> quiet(IbvCq cq, long millis) throws VerbsException {
        return await(cq, Integer.MAX_VALUE, millis);
    }

    @Override
    public void close() {
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (Exception e) {
                // best effort: the contexts below release whatever is left
            }
        }
        a.close();
        b.close();
    }
}
