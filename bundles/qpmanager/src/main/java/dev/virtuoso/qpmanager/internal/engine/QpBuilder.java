package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;

/** Creates path QPs and walks them through INIT, RTR and RTS. */
final class QpBuilder {
    /** READs one QP issues or serves at once. */
    static final int RD_ATOMIC = 16;

    private QpBuilder() {
    }

    /**
     * Creates an RC QP on the shared CQ, moves it to INIT and gives it its receive slots: the
     * reassembly's SRQ, or (device without SRQ) a receive queue of its own with a slot set.
     */
    static IbvQp create(IbvPd pd, IbvCq cq, Reassembly receives, int sendQueueDepth) throws VerbsException {
        IbvQpInitAttr init = new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(sendQueueDepth).maxSendSge(1)
                .maxRecvSge(1).maxRecvWr(1);
        receives.configureQp(init);
        IbvQp qp = pd.createQp(init);
        try {
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                    .qpAccessFlags(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ),
                    IbvQpAttr.MASK_INIT);
            receives.attachQp(qp);
            return qp;
        } catch (VerbsException | RuntimeException e) {
            destroy(qp, receives);
            throw e;
        }
    }

    /** Destroys a path QP and releases its receive slots (if it has its own). */
    static void destroy(IbvQp qp, Reassembly receives) {
        qp.close();
        receives.detachQp(qp);
    }

    /** Moves an INIT QP to RTR and RTS towards the peer's QP. */
    static void connect(PathSlot slot, ConnectOptions o) throws VerbsException {
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.ofBytes(slot.mtu))
                .destQpNum(slot.remoteQpn).rqPsn(slot.remotePsn).maxDestRdAtomic(RD_ATOMIC).minRnrTimer(12);
        rtr.ahAttr().dgid(slot.remote).sgidIndex(slot.sgidIndex).udpPort(slot.remoteUdpPort)
                .flowLabel(flowLabel(slot.local, slot.remote));
        slot.qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        slot.qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RTS).timeout(o.ackTimeout()).retryCnt(o.retryCount())
                .rnrRetry(o.rnrRetry()).sqPsn(slot.localPsn).maxRdAtomic(RD_ATOMIC), IbvQpAttr.MASK_RTS);
    }

    /** A flow label per address pair, so RNICs derive distinct UDP source ports (ECMP entropy). */
    private static int flowLabel(InetAddress a, InetAddress b) {
        return (a.hashCode() * 31 + b.hashCode()) & 0xFFFFF;
    }

    /** Moves a QP to ERR so its outstanding work is flushed. */
    static void toError(IbvQp qp) {
        try {
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        } catch (VerbsException | RuntimeException e) {
            // already destroyed or in ERR: nothing more to flush
        }
    }
}
