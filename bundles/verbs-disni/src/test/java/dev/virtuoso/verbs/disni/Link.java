package dev.virtuoso.verbs.disni;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * TESTS ONLY: one side of a test connection: PD, CQ with a channel, a registered buffer and QPs
 * brought through the SPI state machine towards a peer.
 */
final class Link implements AutoCloseable {
    final IbvContext ctx;
    final IbvPd pd;
    final IbvCompChannel channel;
    final IbvCq cq;
    final ByteBuffer buf;
    final IbvMr mr;
    final List<IbvQp> qps = new ArrayList<>();

    Link(IbvContext ctx, int bufBytes) throws VerbsException {
        this.ctx = ctx;
        pd = ctx.allocPd();
        channel = ctx.createCompChannel();
        cq = ctx.createCq(4096, channel);
        buf = ByteBuffer.allocateDirect(bufBytes);
        mr = pd.regMr(buf, IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ);
    }

    IbvQp qp(int maxInline) throws VerbsException {
        IbvQp qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(256).maxRecvWr(256)
                .maxSendSge(4).maxRecvSge(4).maxInlineData(maxInline));
        qps.add(qp);
        return qp;
    }

    static void init(IbvQp qp) throws VerbsException {
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ),
                IbvQpAttr.MASK_INIT);
    }

    static void rtr(IbvQp qp, Vnic local, Vnic remote, int remoteQpn) throws VerbsException {
        IbvQpAttr a = new IbvQpAttr().qpState(IbvQpState.RTR).destQpNum(remoteQpn).rqPsn(0);
        a.ahAttr().dgid(remote.address()).sgidIndex(local.gidIndex());
        qp.modifyQp(a, IbvQpAttr.MASK_RTR);
    }

    static void rts(IbvQp qp) throws VerbsException {
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(0), IbvQpAttr.MASK_RTS);
    }

    /** Brings two QPs to RTS over the given vNIC pair (path). */
    static void connect(IbvQp a, Vnic va, IbvQp b, Vnic vb) throws VerbsException {
        init(a);
        init(b);
        rtr(a, va, vb, b.qpNum());
        rtr(b, vb, va, a.qpNum());
        rts(a);
        rts(b);
    }

    /** Polls until one completion arrives (5 s at most). */
    IbvWc poll() throws VerbsException {
        IbvWc[] wcs = {new IbvWc()};
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.pollCq(wcs, 1) == 1) {
                return wcs[0];
            }
            Thread.onSpinWait();
        }
        fail("no completion within 5 s on " + ctx.deviceName());
        return null;
    }

    /** @return true if no completion arrives within {@code millis} */
    boolean quietFor(long millis) throws VerbsException {
        IbvWc[] wcs = {new IbvWc()};
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.pollCq(wcs, 1) == 1) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    @Override
    public void close() {
        ctx.close();
    }
}
