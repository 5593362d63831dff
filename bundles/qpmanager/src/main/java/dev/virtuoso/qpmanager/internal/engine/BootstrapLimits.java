package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.qpmanager.internal.bootstrap.PeerLimits;

/**
 * Limits of the TCP bootstrap (set by ConfigAdmin in OSGi; see docs/security.md). A listener
 * takes the limits current when it is opened.
 *
 * @param maxPending accepted connections whose first frame has not fully arrived, all sources
 *     together; more are closed at once
 * @param maxHandshakes handshakes run at once (one thread each); more wait in a queue of
 *     {@code maxPending} and their deadline keeps running
 * @param maxPerSource connections one source address may have pending or in a handshake at once;
 *     more from it are closed at once
 * @param deadlineMillis overall deadline of one handshake, from accept (listener) or from the first
 *     connect attempt (client), over and above the per-step timeout of the connect options
 * @param acceptQueue established connections waiting for {@code accept}; a handshake that would
 *     exceed it is refused with an ERROR before any QP is created
 * @param backlog the kernel's listen backlog
 * @param peer caps on the sizes a peer chooses
 */
public record BootstrapLimits(int maxPending, int maxHandshakes, int maxPerSource, long deadlineMillis,
        int acceptQueue, int backlog, PeerLimits peer) {

    /** 1024 pending, 32 handshakes, 8 per source, 10 s, 64 queued, backlog 256, {@link PeerLimits#DEFAULTS}. */
    public static final BootstrapLimits DEFAULTS = new BootstrapLimits(1024, 32, 8, 10_000, 64, 256,
            PeerLimits.DEFAULTS);

    public BootstrapLimits {
        if (maxPending < 1 || maxHandshakes < 1 || maxPerSource < 1 || deadlineMillis < 1 || acceptQueue < 1
                || backlog < 1 || peer == null) {
            throw new IllegalArgumentException("invalid bootstrap limits: pending=" + maxPending + " handshakes="
                    + maxHandshakes + " perSource=" + maxPerSource + " deadline=" + deadlineMillis + " acceptQueue="
                    + acceptQueue + " backlog=" + backlog);
        }
    }

    /** @return these limits with other peer caps */
    public BootstrapLimits withPeer(PeerLimits p) {
        return new BootstrapLimits(maxPending, maxHandshakes, maxPerSource, deadlineMillis, acceptQueue, backlog, p);
    }
}
