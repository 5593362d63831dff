package dev.virtuoso.spi.verbs;

import java.util.concurrent.TimeUnit;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): lets a thread sleep until a CQ
 * armed with {@link IbvCq#reqNotifyCq} receives a completion.
 *
 * <p>Thread-safe; typically one thread waits on it.
 */
@ProviderType
public interface IbvCompChannel extends AutoCloseable {

    /**
     * Waits for the next event, as {@code ibv_get_cq_event}. Every returned event must be
     * acknowledged with {@link IbvCq#ackCqEvents}. Spurious events are allowed.
     *
     * @param timeout maximum wait; zero polls
     * @param unit unit of {@code timeout}
     * @return the CQ that fired, or {@code null} on timeout
     * @throws VerbsException if the channel is closed
     * @throws InterruptedException if the waiting thread is interrupted
     */
    IbvCq getCqEvent(long timeout, TimeUnit unit) throws VerbsException, InterruptedException;

    /** Destroys the channel and wakes any waiter (which then gets an exception). Idempotent. */
    @Override
    void close();
}
