package dev.virtuoso.spi.verbs;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A completion queue ({@code struct ibv_cq}), possibly shared by many QPs (Virtuoso shares one
 * across all paths of a connection).
 *
 * <p>{@link #pollCq} is meant for a single polling thread and allocates nothing; it must not be
 * called concurrently from two threads.
 */
@ProviderType
public interface IbvCq extends AutoCloseable {

    /**
     * Polls completions, as {@code ibv_poll_cq}: fills {@code wcs[0..n)} in completion order.
     *
     * @param wcs caller-owned completion objects to fill (reused, not retained)
     * @param max maximum to return, at most {@code wcs.length}
     * @return how many were filled, 0 if none
     * @throws VerbsException if the CQ is destroyed or overflowed
     */
    int pollCq(IbvWc[] wcs, int max) throws VerbsException;

    /**
     * Arms the CQ for one event on its channel, as {@code ibv_req_notify_cq}. One-shot: re-arm
     * after each event, then poll again to close the race.
     *
     * @param solicitedOnly only solicited or error completions fire the event
     * @throws VerbsException if the CQ has no channel or is destroyed
     */
    void reqNotifyCq(boolean solicitedOnly) throws VerbsException;

    /**
     * Acknowledges events received from the channel, as {@code ibv_ack_cq_events}.
     *
     * @param count number of events acknowledged
     */
    void ackCqEvents(int count);

    /** @return the number of entries the CQ holds */
    int capacity();

    /** Destroys the CQ. Idempotent. */
    @Override
    void close();
}
