package dev.virtuoso.api;

import java.net.InetSocketAddress;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Entry point of the application API, published as an OSGi service by the QP manager bundle:
 * {@code MP_rdma_connect} and its listening side.
 *
 * <p>Readiness: both methods first wait, at most {@link ConnectOptions#providerTimeout()} (5 s by
 * default), for the verbs provider the options name to be bound and to offer the device they name.
 * Code that has just (re)configured a provider, e.g. the soft RNIC through ConfigurationAdmin, can
 * call them at once, with no retry loop.
 *
 * <p>Thread-safe. Connections and listeners it creates are owned by the caller, who must close
 * them; when the publishing bundle stops, every connection it created is disconnected (outstanding
 * MP work requests complete with {@link MpStatus#FLUSHED}).
 */
@ProviderType
public interface MultipathConnector {

    /**
     * Starts accepting multipath connections on a TCP bootstrap address.
     *
     * @param bootstrap address and port of the bootstrap listener (port 0 picks a free one)
     * @param options this side's settings (paths, provider, secret, policies) for accepted
     *     connections
     * @return the listener, owned by the caller
     * @throws VirtuosoException {@code IO} if the address cannot be bound,
     *     {@code PROVIDER_UNAVAILABLE} if the requested provider or device is still absent after
     *     {@link ConnectOptions#providerTimeout()}
     */
    MultipathListener listen(InetSocketAddress bootstrap, ConnectOptions options) throws VirtuosoException;

    /**
     * Connects to a listener: one bootstrap exchange over TCP carries every path's QP attributes,
     * then one RC QP per path is brought to RTS, all in one protection domain with one shared
     * completion queue. Blocks at most about {@code paths x handshakeTimeout}.
     *
     * @param remote the peer's bootstrap address
     * @param options this side's settings
     * @return an established connection, owned by the caller
     * @throws VirtuosoException {@code HANDSHAKE} if the peer rejects us or answers malformed data,
     *     {@code TIMEOUT} if a step times out, {@code NO_PATH} if no path pair can be formed,
     *     {@code PROVIDER_UNAVAILABLE} if the requested provider or device is still absent after
     *     {@link ConnectOptions#providerTimeout()}, {@code UNKNOWN_POLICY} as named
     */
    MultipathConnection connect(InetSocketAddress remote, ConnectOptions options) throws VirtuosoException;
}
