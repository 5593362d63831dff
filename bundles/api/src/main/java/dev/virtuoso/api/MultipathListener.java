package dev.virtuoso.api;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Accepts multipath connections. Handshakes run on the listener's own thread; completed
 * connections queue until {@link #accept}ed. Thread-safe.
 */
@ProviderType
public interface MultipathListener extends AutoCloseable {

    /** @return the bound bootstrap address */
    InetSocketAddress localAddress();

    /**
     * Takes the next established connection.
     *
     * @param timeout maximum wait
     * @param unit unit of {@code timeout}
     * @return the connection (owned by the caller), or {@code null} if none arrived in time
     * @throws VirtuosoException {@code CLOSED} if the listener is closed
     * @throws InterruptedException if interrupted while waiting
     */
    MultipathConnection accept(long timeout, TimeUnit unit) throws VirtuosoException, InterruptedException;

    /** Stops listening; connections already accepted stay open, queued ones are closed. Idempotent. */
    @Override
    void close();
}
