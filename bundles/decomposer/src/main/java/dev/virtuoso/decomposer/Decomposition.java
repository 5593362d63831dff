package dev.virtuoso.decomposer;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.verbs.IbvWc;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One connection's decomposition state: messages being split, chunks in flight, the policy
 * sessions in use. Every method is called on the connection's engine thread only; none blocks and
 * none allocates in steady state.
 *
 * <p>Chunk work-request identifiers carry {@link DecompositionConfig#wrIdTag()}, the tag the engine
 * assigned, in their top bits ({@link dev.virtuoso.util.WrId}) so that the engine can route the
 * completions of the shared CQ.
 */
@ProviderType
public interface Decomposition extends AutoCloseable {

    /**
     * Accepts an MP work request; zero-length WRITE and READ complete at once.
     *
     * @param spec the request, copied
     * @return false if {@link DecompositionConfig#maxMessages} requests are already held
     */
    boolean submit(MessageSpec spec);

    /**
     * Advances the clock ({@link PathStateView#nowNanos()}), applies the failover timeout and
     * re-enables placement that waited. Call once per duty cycle before the other methods. The
     * failover timeout runs while messages are unfinished and no path is both healthy
     * ({@link PathTable#anyHealthy()}) and usable by the policy view (e.g. a path monitor keeping a
     * recovered path on probation); when it expires every unfinished message fails with
     * {@link MpStatus#PATH_FAILURE} and {@link DecompositionCounters#failoverTimeouts()} grows.
     *
     * @param nowNanos {@link System#nanoTime()}
     */
    void tick(long nowNanos);

    /**
     * Places and posts as many chunks as the sessions and path windows allow.
     *
     * @return chunks posted
     */
    int schedule();

    /**
     * Handles a completion whose wr_id carries this decomposition's {@link DecompositionConfig#wrIdTag() tag}.
     *
     * @param wc the completion (not retained)
     */
    void onCompletion(IbvWc wc);

    /**
     * Switches the load-balancing session now (the engine calls it between two chunks). The
     * previous session is closed unless it is the built-in one, and never called again.
     *
     * @param session the new session, or {@code null} for the built-in round robin
     */
    void loadBalancer(LoadBalancerSession session);

    /**
     * Switches the congestion-avoidance session now; the previous one is closed.
     *
     * @param session the new session, or {@code null} for the built-in fixed chunk size
     */
    void congestionAvoidance(CongestionAvoidanceSession session);

    /**
     * Replaces the view that gates placement (e.g. when a path monitor comes or goes).
     *
     * @param view the new view, or {@code null} for the path table
     */
    void policyView(PathStateView view);

    /** Paths were added, removed or changed state: the sessions are told, placement re-tried. */
    void pathsChanged();

    /**
     * The chunks in flight on a path will not complete (its QP was destroyed): their ranges are
     * placed again on other paths; their messages complete only after {@link #pathFenced}.
     *
     * @param path path slot
     * @return chunks abandoned
     */
    int abandonPath(int path);

    /**
     * The peer has confirmed that nothing posted so far on a path can still take effect: its end of
     * the path (the QP that receives this side's WRITEs and SENDs) is in ERR or destroyed, so
     * packets of an abandoned attempt still in the network are dropped. A message with a chunk that
     * failed or was abandoned on a path is not reported complete before this is called for that
     * path: otherwise a late packet of the first attempt could land after the application saw the
     * completion. Except a SEND whose receiver drops a second copy ({@link MessageSpec#dropsDuplicates}):
     * its late copy changes nothing, so it completes once a copy has.
     *
     * <p>A message whose chunk is an RDMA WRITE with immediate ({@link MessageSpec#sendSmallDirect})
     * is not re-posted before this either: it is re-sent as a SEND with the same immediate once
     * every path where it failed is fenced, so neither the failed WRITE nor the re-sent message can
     * write into the peer's buffer after the peer delivered it.
     *
     * @param path path slot
     * @return messages that were held for the path and completed now
     * @since 1.1
     */
    int pathFenced(int path);

    /**
     * @return messages whose data has all been placed but whose completion waits for
     *     {@link #pathFenced} of a path where one of their attempts failed
     * @since 1.1
     */
    int messagesAwaitingFence();

    /**
     * Fails every unfinished message.
     *
     * @param status status to report
     * @param detail failure detail
     * @param abandonInFlight true to complete at once, forgetting chunks in flight (their late
     *     completions are ignored); false to wait for their completions
     * @return messages failed
     */
    int failAll(MpStatus status, String detail, boolean abandonInFlight);

    /**
     * @param path path slot
     * @return the largest chunk the congestion-avoidance policy places on the path now
     * @since 2.1
     */
    long maxChunkBytes(int path);

    /**
     * @param path path slot
     * @return chunks the congestion-avoidance policy lets be in flight on the path (at least 1)
     * @since 2.1
     */
    int maxOutstandingChunks(int path);

    /**
     * @param path path slot
     * @return the congestion-avoidance policy's pacing rate for the path, bits per second, 0 for none
     * @since 2.2
     */
    long pacingBitsPerSecond(int path);

    /** @return messages accepted and not yet completed */
    int messagesInProgress();

    /** @return chunks posted and not yet completed */
    int chunksInFlight();

    /** @return counters of this decomposition (live view) */
    DecompositionCounters counters();

    /** Closes the policy sessions. Idempotent. */
    @Override
    void close();
}
