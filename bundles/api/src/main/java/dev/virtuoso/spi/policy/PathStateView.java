package dev.virtuoso.spi.policy;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What policies read about a connection's paths: a live view kept by the core (and the path
 * monitor) and read on the engine thread. Paths are numbered {@code 0..pathCount()-1}; a number
 * stays attached to its path for the life of the connection (removed paths stay unusable), so a
 * session may keep per-path arrays sized by {@link #pathCount()} and grow them when it grows.
 *
 * <p>Rates are bytes per second; 0 means "not known yet".
 */
@ProviderType
public interface PathStateView {
    /**
     * Completions of at most this many bytes (one RoCE packet at the largest MTU: the reassembly's
     * control messages, placement notices, small messages) measure a path's latency, not its rate:
     * {@link #estimatedRate} takes no sample from them, and a policy that weighs paths by the data
     * they completed should not count them either.
     *
     * @since 1.3
     */
    long MAX_LATENCY_ONLY_BYTES = 4096;


    /** @return number of path slots (usable or not) */
    int pathCount();

    /**
     * @param path path slot
     * @return true if the path may carry new chunks (QP in RTS and healthy)
     */
    boolean usable(int path);

    /** @return bytes posted on the path and not yet completed */
    long inFlightBytes(int path);

    /** @return chunks posted on the path and not yet completed */
    int inFlightChunks(int path);

    /** @return capacity measured by active probing, 0 if never probed */
    double probedCapacity(int path);

    /** @return rate estimated from recent completions (moving average), 0 if unknown */
    double estimatedRate(int path);

    /** @return smoothed chunk completion latency in nanoseconds, 0 if unknown */
    long smoothedLatencyNanos(int path);

    /** @return bytes completed successfully on the path since it was added */
    long completedBytes(int path);

    /** @return errors since the last success on this path */
    int consecutiveErrors(int path);

    /** @return the engine's clock, {@link System#nanoTime()} at the current decision */
    long nowNanos();
}
