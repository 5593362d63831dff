package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;

import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvSendWr;

/** The verbs side of one path: its QP, both ends, and the reused send WR. Engine thread only. */
final class PathSlot {
    final InetAddress local;
    final InetAddress remote;
    final int sgidIndex;
    final IbvQp qp;
    final int localPsn;
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

    PathSlot(InetAddress local, InetAddress remote, int sgidIndex, IbvQp qp, int localPsn, int sendQueueDepth) {
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
            qp.close();
        }
    }

    @Override
    public String toString() {
        return "path " + id + " " + local.getHostAddress() + "->" + remote.getHostAddress() + " qpn "
                + Integer.toHexString(qp.qpNum()) + "/" + Integer.toHexString(remoteQpn);
    }
}
