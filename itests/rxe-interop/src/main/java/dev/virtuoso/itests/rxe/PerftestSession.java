package dev.virtuoso.itests.rxe;

import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.VerbsException;
import java.io.IOException;

/**
 * One perftest conversation over TCP for one path (one perftest process in the guest, one QP of
 * ours), in the order perftest 4.5-0.17 (version 6.06) runs it without rdma_cm, one QP per process:
 * <ol>
 * <li>versions (16 bytes), cycle buffer and cache line (4 + 4), MTU (2);</li>
 * <li>QP records, connect QPs (RTR/RTS), QP records again, then (WRITE/READ) one more handshake
 * "after RTR", or (SEND) one handshake then receives posted and one more handshake;</li>
 * <li>data phase (not here: {@link Traffic});</li>
 * <li>WRITE/READ: a handshake ending the run, the bandwidth reports, close; SEND: close only.</li>
 * </ol>
 * Close = a last handshake and "done".
 */
final class PerftestSession {
    private static final int CYCLE_BUFFER = 4096;
    private static final int CACHE_LINE = 64;

    private final PeerCase peerCase;
    private final PerftestChannel channel;
    private final QpEndpoint endpoint;
    private final IbvMtu localMtu;
    private final int ackTimeout;
    private PerftestDest remote;
    private String remoteVersion;
    private IbvMtu pathMtu;
    private BwReport remoteReport;

    PerftestSession(PeerCase peerCase, PerftestChannel channel, QpEndpoint endpoint, IbvMtu localMtu,
            int ackTimeout) {
        this.peerCase = peerCase;
        this.channel = channel;
        this.endpoint = endpoint;
        this.localMtu = localMtu;
        this.ackTimeout = ackTimeout;
    }

    /**
     * Runs everything up to the data phase.
     *
     * @param beforeLastHandshake called (SEND only) when receives must be posted, before the
     *     handshake that lets the peer start sending
     * @throws IOException on a protocol or socket error
     * @throws VerbsException if the QP cannot be connected
     */
    void setUp(VerbsAction beforeLastHandshake) throws IOException, VerbsException {
        remoteVersion = channel.exchangeVersions();
        if (parseVersion(remoteVersion) < 5.70) {
            throw new IOException("perftest version '" + remoteVersion + "' older than 5.70");
        }
        int[] sys = channel.exchangeSysData(CYCLE_BUFFER, CACHE_LINE);
        if (sys[0] > CYCLE_BUFFER) {
            throw new IOException("peer's cycle buffer " + sys[0] + " > " + CYCLE_BUFFER
                    + ": its buffer layout would not be the one the guest script checks");
        }
        int remoteMtu = channel.exchangeMtu(mtuEnum(localMtu));
        pathMtu = remoteMtu >= 1 && remoteMtu <= 5 && remoteMtu < mtuEnum(localMtu)
                ? IbvMtu.values()[remoteMtu - 1] : localMtu;
        PerftestDest mine = endpoint.myDest();
        remote = channel.handShake(mine);
        endpoint.connect(remote, pathMtu, ackTimeout);
        PerftestDest again = channel.handShake(mine);
        if (!again.equals(remote)) {
            throw new IOException("peer changed its QP record: " + remote + " then " + again);
        }
        channel.handShake(mine); // WRITE/READ: "after RTR"; SEND: the per-QP records again
        if (peerCase.verb() == PeerCase.Verb.SEND) {
            beforeLastHandshake.run();
            channel.handShake(mine);
        }
    }

    /**
     * Runs everything after the data phase; for WRITE/READ with the guest as client this blocks
     * until the guest has finished its transfers.
     *
     * @param myReport our bandwidth report (WRITE/READ)
     * @throws IOException on a protocol or socket error
     */
    void finish(BwReport myReport) throws IOException {
        PerftestDest mine = endpoint.myDest();
        if (peerCase.verb() != PeerCase.Verb.SEND) {
            channel.handShake(mine);
            remoteReport = channel.exchangeBwReport(myReport);
        }
        channel.closeConnection(mine);
    }

    /** @return the peer's QP record */
    PerftestDest remote() {
        return remote;
    }

    /** @return the path MTU agreed with the peer */
    IbvMtu pathMtu() {
        return pathMtu;
    }

    /** @return the peer's perftest version */
    String remoteVersion() {
        return remoteVersion;
    }

    /** @return the peer's bandwidth report (WRITE/READ), or null */
    BwReport remoteReport() {
        return remoteReport;
    }

    void abort() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a broken socket; the failure that led here is what gets reported
        }
    }

    static int mtuEnum(IbvMtu mtu) {
        return mtu.ordinal() + 1;
    }

    private static double parseVersion(String v) {
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** A step that may fail with a verbs error. */
    @FunctionalInterface
    interface VerbsAction {
        void run() throws VerbsException;
    }
}
