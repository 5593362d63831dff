package dev.virtuoso.itests.rxe;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;
import java.net.InetAddress;
import java.security.SecureRandom;

/**
 * Our end of one path: an RC QP bound to one local vNIC, and its slice of the shared memory region:
 * {@code [local | remote | receive slots...]}, each {@code size} bytes. "local" is what we send from
 * or READ into; "remote" is what we expose to the peer (its WRITE target or READ source); receive
 * slots take SENDs.
 */
public final class QpEndpoint implements AutoCloseable {
    /** RDMA READs we let the peer have outstanding towards us (perftest's out_reads). */
    static final int OUT_READS = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final IbvQp qp;
    private final IbvMr mr;
    private final int base;
    private final int size;
    private final int vnicIndex;
    private final PerftestDest myDest;

    private QpEndpoint(IbvQp qp, IbvMr mr, int base, int size, int vnicIndex, InetAddress vnic) {
        this.qp = qp;
        this.mr = mr;
        this.base = base;
        this.size = size;
        this.vnicIndex = vnicIndex;
        this.myDest = new PerftestDest(0, OUT_READS, qp.qpNum(), RANDOM.nextInt(1 << 24), mr.rkey(),
                mr.address() + remoteOffset(), PerftestDest.gidOf(vnic), 0);
    }

    /**
     * Creates the QP (in INIT) for one path.
     *
     * @param pd protection domain shared by all paths
     * @param cq completion queue shared by all paths
     * @param mr memory region shared by all paths
     * @param base offset of this path's slice in the region
     * @param size message size
     * @param maxSendWr send queue depth
     * @param maxRecvWr receive queue depth
     * @param vnicIndex local GID index (our vNIC) of this path
     * @param vnic that vNIC's address
     * @return the endpoint
     * @throws VerbsException if the QP cannot be created or initialised
     */
    public static QpEndpoint create(IbvPd pd, IbvCq cq, IbvMr mr, int base, int size, int maxSendWr,
            int maxRecvWr, int vnicIndex, InetAddress vnic) throws VerbsException {
        IbvQp qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(maxSendWr)
                .maxRecvWr(maxRecvWr).maxSendSge(1).maxRecvSge(1));
        try {
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                    .qpAccessFlags(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ),
                    IbvQpAttr.MASK_INIT);
            return new QpEndpoint(qp, mr, base, size, vnicIndex, vnic);
        } catch (VerbsException | RuntimeException e) {
            qp.close();
            throw e;
        }
    }

    /**
     * Moves the QP to RTR and RTS towards the peer, as perftest's {@code ctx_connect} does on its side.
     *
     * @param remote the peer's record
     * @param mtu the path MTU both sides agreed on
     * @param ackTimeout local ACK timeout exponent
     * @throws VerbsException if a transition is refused
     */
    public void connect(PerftestDest remote, IbvMtu mtu, int ackTimeout) throws VerbsException {
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(mtu).destQpNum(remote.qpn())
                .rqPsn(remote.psn()).maxDestRdAtomic(OUT_READS).minRnrTimer(12);
        rtr.ahAttr().dgid(remote.gidAddress()).sgidIndex(vnicIndex).hopLimit(64);
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        IbvQpAttr rts = new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(myDest.psn()).timeout(ackTimeout)
                .retryCnt(7).rnrRetry(7).maxRdAtomic(Math.max(1, Math.min(OUT_READS, remote.outReads())));
        qp.modifyQp(rts, IbvQpAttr.MASK_RTS);
    }

    /** @return the QP */
    public IbvQp qp() {
        return qp;
    }

    /** @return this side's record for perftest */
    public PerftestDest myDest() {
        return myDest;
    }

    /** @return region offset of the local buffer (send source, READ destination) */
    public int localOffset() {
        return base;
    }

    /** @return region offset of the buffer the peer may access */
    public int remoteOffset() {
        return base + size;
    }

    /**
     * @param slot receive slot index
     * @return region offset of that receive buffer
     */
    public int slotOffset(int slot) {
        return base + (2 + slot) * size;
    }

    /**
     * @param slots receive slots per path
     * @param size message size
     * @return bytes one path's slice needs
     */
    public static long sliceBytes(int slots, int size) {
        return (2L + slots) * size;
    }

    @Override
    public void close() {
        qp.close();
    }
}
