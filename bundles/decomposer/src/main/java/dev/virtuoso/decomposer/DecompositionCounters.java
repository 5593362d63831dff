package dev.virtuoso.decomposer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters of one decomposition. Written by the engine thread; readers on other threads see
 * recent values.
 */
public final class DecompositionCounters {
    /**
     * One slot per {@link Counter}. The engine thread is the single writer: it stores a count with
     * release semantics rather than as a volatile write, which would cost a full fence per count on
     * the data path; readers see recent values.
     */
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] values = new long[Counter.values().length];

    private long get(Counter c) {
        return (long) VALUES.getAcquire(values, c.ordinal());
    }

    /** @return MP work requests accepted */
    public long messagesSubmitted() {
        return get(Counter.SUBMITTED);
    }

    /** @return MP work requests completed successfully */
    public long messagesCompleted() {
        return get(Counter.COMPLETED);
    }

    /** @return MP work requests completed with an error */
    public long messagesFailed() {
        return get(Counter.FAILED);
    }

    /** @return chunk WRs posted (including re-posts) */
    public long chunksPosted() {
        return get(Counter.POSTED);
    }

    /** @return chunk ranges placed again after a path failure */
    public long chunksReposted() {
        return get(Counter.REPOSTED);
    }

    /** @return chunk completions with an error status */
    public long chunksFailed() {
        return get(Counter.CHUNK_FAILED);
    }

    /** @return completions for chunks already forgotten (abandoned), ignored */
    public long staleCompletions() {
        return get(Counter.STALE);
    }

    /** @return placements skipped because the chosen path's window was full */
    public long placementsDeferred() {
        return get(Counter.DEFERRED);
    }

    /** @return placements naming an unusable or unknown path (the built-in choice was used) */
    public long invalidPlacements() {
        return get(Counter.INVALID_PLACEMENT);
    }

    /** @return posts the transport refused */
    public long postRefused() {
        return get(Counter.POST_REFUSED);
    }

    /** @return times the failover timeout expired (and unfinished messages failed with PATH_FAILURE) */
    public long failoverTimeouts() {
        return get(Counter.FAILOVER_TIMEOUT);
    }

    /**
     * @return messages whose completion was held until the peer confirmed a failed path's old
     *     attempts dead ({@link Decomposition#pathFenced})
     * @since 1.1
     */
    public long fenceWaits() {
        return get(Counter.FENCE_WAIT);
    }

    /** @return exceptions thrown by policy sessions (the session was replaced by the built-in) */
    public long policyFaults() {
        return get(Counter.POLICY_FAULT);
    }

    /** Engine-thread increments (single writer, so plain read-modify-write is safe). */
    public void add(Counter c) {
        int i = c.ordinal();
        VALUES.setRelease(values, i, values[i] + 1);
    }

    /** Names of the counters for {@link #add}. */
    public enum Counter {
        SUBMITTED, COMPLETED, FAILED, POSTED, REPOSTED, CHUNK_FAILED, STALE, DEFERRED, INVALID_PLACEMENT,
        POST_REFUSED, POLICY_FAULT, FAILOVER_TIMEOUT, FENCE_WAIT
    }

    @Override
    public String toString() {
        return "DecompositionCounters[submitted=" + get(Counter.SUBMITTED) + ", completed="
                + get(Counter.COMPLETED) + ", failed=" + get(Counter.FAILED) + ", chunks=" + get(Counter.POSTED)
                + ", reposted=" + get(Counter.REPOSTED) + ", chunkErrors=" + get(Counter.CHUNK_FAILED) + ", stale="
                + get(Counter.STALE) + ", deferred=" + get(Counter.DEFERRED) + ", invalidPlacements="
                + get(Counter.INVALID_PLACEMENT) + ", refused=" + get(Counter.POST_REFUSED) + ", policyFaults="
                + get(Counter.POLICY_FAULT) + ", failoverTimeouts=" + get(Counter.FAILOVER_TIMEOUT)
                + ", fenceWaits=" + get(Counter.FENCE_WAIT) + "]";
    }
}
