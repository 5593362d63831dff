package dev.virtuoso.pathmonitor.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A path's chunk limits as the connection's congestion-avoidance policy sets them at the moment:
 * probe WRITEs obey them like data chunks, so a probe never bursts more onto a path than the
 * policy lets a data chunk (on a shallow-buffered path a larger burst is lost and, with no
 * retries, fails the path's QP). Read on the engine thread.
 *
 * @since 1.1
 */
@ConsumerType
public interface ChunkLimits {
    /** No limits: probe WRITEs keep the monitor's own sizes and are posted at once. */
    ChunkLimits NONE = new ChunkLimits() {
        @Override
        public long maxChunkBytes(int path) {
            return Long.MAX_VALUE;
        }

        @Override
        public int maxOutstandingChunks(int path) {
            return Integer.MAX_VALUE;
        }
    };

    /**
     * @param path path slot
     * @return the largest chunk the policy places on the path now (at least 1)
     */
    long maxChunkBytes(int path);

    /**
     * @param path path slot
     * @return how many chunks the policy lets be in flight on the path (at least 1)
     */
    int maxOutstandingChunks(int path);
}
