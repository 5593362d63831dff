package dev.virtuoso.pathmonitor.api;

import dev.virtuoso.api.PathState;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.PathStateView;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One connection's path monitor: the live {@link PathStateView} handed to the policy sessions, fed
 * by the core's hooks. All methods except {@link #statistics} and {@link #close} are called only
 * on the connection's engine thread, never block, and allocate only when a path is added.
 *
 * <p>{@link #usable(int)} is true only for paths the core reported {@link PathState#UP} and that
 * the monitor judges {@link PathHealth#HEALTHY}. In-flight figures include probe WRITEs.
 */
@ProviderType
public interface PathMonitor extends PathStateView, AutoCloseable {

    /**
     * Advances the monitor's clock and runs its periodic work (stall detection, error cooldowns,
     * probe scheduling). Call at the start of every duty cycle, before completions are reported and
     * before the policies are asked.
     *
     * @param nowNanos {@link System#nanoTime()}
     */
    void tick(long nowNanos);

    /**
     * A path was added in slot {@code path}; slots are added in increasing order
     * ({@code path == pathCount()} before the call). The path starts {@link PathState#UP}; a probe
     * flow is planned for it.
     *
     * @param path the new slot
     */
    void onPathAdded(int path);

    /**
     * The core changed a path's state: {@link PathState#RECOVERING} when its QP failed (it leaves
     * the placement at once), {@link PathState#UP} when the re-created QP is connected again (it is
     * probed and rejoins), {@link PathState#DOWN} when removed.
     *
     * @param path path slot
     * @param state new state
     */
    void onPathState(int path, PathState state);

    /**
     * A data chunk was posted (after a successful post, before the next policy call).
     *
     * @param path path slot
     * @param bytes chunk length
     */
    void onChunkPosted(int path, long bytes);

    /**
     * A data chunk ended. Call before telling the policy sessions.
     *
     * @param path path slot
     * @param bytes chunk length
     * @param latencyNanos time from post to completion
     * @param outcome how it ended
     */
    void onChunkCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome);

    /**
     * Gives the monitor the congestion-avoidance policy's chunk limits, which its probe WRITEs
     * obey: no probe WRITE larger than {@link ChunkLimits#maxChunkBytes}, no more of them in flight
     * on a path than {@link ChunkLimits#maxOutstandingChunks}. Until called, {@link ChunkLimits#NONE}.
     *
     * @param limits read when probes are planned and issued (engine thread)
     * @since 1.1
     */
    default void chunkLimits(ChunkLimits limits) {
        // a monitor that sizes its probes on its own ignores them
    }

    /**
     * Offers the path a capacity another connection of this host measured recently on the same
     * path pair (same device, local and remote vNIC, path MTU, this direction): the core shares
     * probe results between the connections of one connector so that each does not probe the
     * same link afresh. Called on the engine thread right after {@link #onPathAdded} for a new
     * slot, before any probe of it is handed out. A monitor that takes it uses it as the path's
     * probed capacity (the link's, not a per-connection share) and drops the path's connect-time
     * probe flows; one that refuses probes as usual.
     *
     * @param path the slot just added
     * @param bytesPerSecond the shared probed capacity, positive
     * @param ageNanos how long ago it was measured
     * @return true if taken (no connect-time probe of the path follows)
     * @since 1.2
     */
    default boolean seedCapacity(int path, double bytesPerSecond, long ageNanos) {
        return false;
    }

    /**
     * @param path path slot
     * @return how many of this monitor's own probe flows set the path's probed capacity so far (a
     *     seeded capacity does not count): the core shares {@link #probedCapacity} with other
     *     connections each time this grows
     * @since 1.2
     */
    default long capacityMeasurements(int path) {
        return 0;
    }

    /**
     * Asks for the next probe WRITE to post now. Call repeatedly in each duty cycle until it
     * returns false. Each request returned must be posted (then completed with
     * {@link #onProbeCompleted}) or, if it cannot be posted, reported at once with outcome
     * {@link ChunkOutcome#ERROR}.
     *
     * @param out filled when returning true
     * @return true if a probe WRITE should be posted now
     */
    boolean nextProbe(ProbeRequest out);

    /**
     * A probe WRITE ended.
     *
     * @param path path slot
     * @param bytes its length
     * @param latencyNanos time from post to completion (0 if it could not be posted)
     * @param outcome how it ended
     */
    void onProbeCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome);

    /**
     * @param path path slot
     * @return the monitor's health verdict
     */
    PathHealth health(int path);

    /**
     * Requests a new probe flow on the path (e.g. from a command); it starts when the path is
     * usable and probing is enabled.
     *
     * @param path path slot
     */
    void requestProbe(int path);

    /**
     * Copies one path's statistics. Safe from any thread; values are a recent, not necessarily
     * atomic, view.
     *
     * @param path path slot
     * @param out filled
     * @return {@code out}
     */
    PathStatistics statistics(int path, PathStatistics out);

    /** Releases the monitor; no hook is called afterwards. Idempotent. */
    @Override
    void close();
}
