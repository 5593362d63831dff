package dev.virtuoso.spi.policy;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One connection's load-balancing state. Called only on the connection's engine thread; methods
 * must not block and should not allocate.
 */
@ConsumerType
public interface LoadBalancerSession extends AutoCloseable {

    /**
     * A new message of {@code totalBytes} starts being decomposed (pre-allocating policies split it
     * here, as the paper's equation 1).
     *
     * @param messageId core-assigned identifier, unique per connection
     * @param totalBytes message length
     */
    void onMessageStart(long messageId, long totalBytes);

    /**
     * Chooses the path for the next chunk of the message being decomposed.
     *
     * @param messageId the message
     * @param remainingBytes bytes of the message not yet placed
     * @param out filled with the choice when returning true
     * @return false to post nothing now (wait for completions before placing more); the core asks
     *     again after the next completion
     */
    boolean place(long messageId, long remainingBytes, ChunkPlacement out);

    /**
     * A chunk finished.
     *
     * @param path path slot
     * @param bytes chunk length
     * @param latencyNanos time from post to completion
     * @param outcome how it ended
     */
    void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome);

    /** Paths were added or removed; {@link PathStateView#pathCount()} may have grown. */
    void onPathsChanged();

    /** Releases the session; it is never called again afterwards. */
    @Override
    void close();
}
