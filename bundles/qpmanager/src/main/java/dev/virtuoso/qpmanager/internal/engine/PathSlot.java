package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;

import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvSendWr;

/** The verbs side of one path: its QP, both ends, and the reused send WR. Engine thread only. */
final class PathSlot {
    final InetAddress local;
    final InetAddress remote;
    final int sgidIndex;
    IbvQp qp;
    int localPsn;
    final int sendQueueDepth;
    final IbvSendWr wr = new IbvSendWr(1);
    int id = -1;
    int remoteQpn;
    int remotePsn;
    int remoteUdpPort;
    int mtu;
    /** Removal under way: this side no longer places chunks here. */
    boolean removing;
    boolean drainedSent;
    boolean peerDrained;
    long removeDeadline;
    boolean destroyed;
    /** Failback: when to try re-creating the failed QP, and the current back-off. */
    long nextRepairAt;
    long repairDelayNanos = PathManager.MIN_REPAIR_DELAY_NANOS;
    long failedAt;
    /** A repair request of ours is pending (its new QP, not yet connected). */
    IbvQp repairQp;
    int repairPsn;
    int repairRequest;
    /** This side answered a repair and waits for the peer's PATH_READY. */
    boolean awaitingReady;
    long completedAtRepair;

    /** Owner of the QPs' receive slots (released with each QP). */
    final Reassembly receives;

    PathSlot(InetAddress local, InetAddress remote, int sgidIndex, IbvQp qp, int localPsn, int sendQueueDepth,
            Reassembly receives) {
        this.receives = receives;
        this.local = local;
        this.remote = remote;
        this.sgidIndex = sgidIndex;
        this.qp = qp;
        this.localPsn = localPsn;
        this.sendQueueDepth = sendQueueDepth;
    }

    void destroy() {
        if (!destroyed) {
            destroyed = true;
            QpBuilder.destroy(qp, receives);
            dropRepair();
        }
    }

    void dropRepair() {
        if (repairQp != null) {
            QpBuilder.destroy(repairQp, receives);
            repairQp = null;
        }
        repairRequest = 0;
    }

    @Override
    public String toString() {
        return "path " + id + " " + local.getHostAddress() + "->" + remote.getHostAddress() + " qpn "
                + Integer.toHexString(qp.qpNum()) + "/" + Integer.toHexString(remoteQpn);
    }
}
