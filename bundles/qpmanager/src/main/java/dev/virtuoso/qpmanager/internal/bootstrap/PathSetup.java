package dev.virtuoso.qpmanager.internal.bootstrap;

import java.net.InetAddress;
import java.util.List;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathAnswer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;

/**
 * What the handshake needs from the side's verbs resources: QPs are created and connected through
 * it, so the protocol itself is independent of the verbs provider.
 */
public interface PathSetup {

    /** @return this side's vNIC addresses usable as paths, in order */
    List<InetAddress> localAddresses();

    /** @return this side's receive parameters and MTU */
    ReceiveParams params();

    /**
     * Client: creates one QP per pair (INIT state) and describes them.
     *
     * @param local local vNIC addresses
     * @param remote remote vNIC addresses, paired by index (same size as {@code local})
     * @return one offer per pair, in order
     * @throws VirtuosoException if the QPs cannot be created
     */
    List<PathOffer> offerPaths(List<InetAddress> local, List<InetAddress> remote) throws VirtuosoException;

    /**
     * Client: connects the offered QPs with the server's answers (RTR, RTS).
     *
     * @param peer the server's parameters
     * @param answers one per offer, in order
     * @throws VirtuosoException if a QP cannot be connected
     */
    void connectPaths(ReceiveParams peer, List<PathAnswer> answers) throws VirtuosoException;

    /**
     * Server: validates the client's offers, creates and connects one QP per offer (RTS).
     *
     * @param peer the client's parameters
     * @param offers the client's paths ({@link PathOffer#remote()} names one of this side's vNICs)
     * @return one answer per offer, in order
     * @throws VirtuosoException {@code NO_PATH} if an offer names an address this side does not
     *     serve, or another reason if the QPs cannot be created
     */
    List<PathAnswer> acceptPaths(ReceiveParams peer, List<PathOffer> offers) throws VirtuosoException;
}
