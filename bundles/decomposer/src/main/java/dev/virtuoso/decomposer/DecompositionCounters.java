package dev.virtuoso.decomposer;

/**
 * Counters of one decomposition. Written by the engine thread; readers on other threads see
 * recent values.
 */
public final class DecompositionCounters {
    volatile long messagesSubmitted;
    volatile long messagesCompleted;
    volatile long messagesFailed;
    volatile long chunksPosted;
    volatile long chunksReposted;
    volatile long chunksFailed;
    volatile long staleCompletions;
    volatile long placementsDeferred;
    volatile long invalidPlacements;
    volatile long postRefused;
    volatile long policyFaults;
    volatile long failoverTimeouts;
    volatile long fenceWaits;

    /** @return MP work requests accepted */
    public long messagesSubmitted() {
        return messagesSubmitted;
    }

    /** @return MP work requests completed successfully */
    public long messagesCompleted() {
        return messagesCompleted;
    }

    /** @return MP work requests completed with an error */
    public long messagesFailed() {
        return messagesFailed;
    }

    /** @return chunk WRs posted (including re-posts) */
    public long chunksPosted() {
        return chunksPosted;
    }

    /** @return chunk ranges placed again after a path failure */
    public long chunksReposted() {
        return chunksReposted;
    }

    /** @return chunk completions with an error status */
    public long chunksFailed() {
        return chunksFailed;
    }

    /** @return completions for chunks already forgotten (abandoned), ignored */
    public long staleCompletions() {
        return staleCompletions;
    }

    /** @return placements skipped because the chosen path's window was full */
    public long placementsDeferred() {
        return placementsDeferred;
    }

    /** @return placements naming an unusable or unknown path (the built-in choice was used) */
    public long invalidPlacements() {
        return invalidPlacements;
    }

    /** @return posts the transport refused */
    public long postRefused() {
        return postRefused;
    }

    /** @return times the failover timeout expired (and unfinished messages failed with PATH_FAILURE) */
    public long failoverTimeouts() {
        return failoverTimeouts;
    }

    /**
     * @return messages whose completion was held until the peer confirmed a failed path's old
     *     attempts dead ({@link Decomposition#pathFenced})
     * @since 1.1
     */
    public long fenceWaits() {
        return fenceWaits;
    }

    /** @return exceptions thrown by policy sessions (the session was replaced by the built-in) */
    public long policyFaults() {
        return policyFaults;
    }

    /** Engine-thread increments (single writer, so plain read-modify-write is safe). */
    public void add(Counter c) {
        switch (c) {
            case SUBMITTED -> messagesSubmitted++;
            case COMPLETED -> messagesCompleted++;
            case FAILED -> messagesFailed++;
            case POSTED -> chunksPosted++;
            case REPOSTED -> chunksReposted++;
            case CHUNK_FAILED -> chunksFailed++;
            case STALE -> staleCompletions++;
            case DEFERRED -> placementsDeferred++;
            case INVALID_PLACEMENT -> invalidPlacements++;
            case POST_REFUSED -> postRefused++;
            case POLICY_FAULT -> policyFaults++;
            case FAILOVER_TIMEOUT -> failoverTimeouts++;
            case FENCE_WAIT -> fenceWaits++;
            default -> throw new IllegalArgumentException(String.valueOf(c));
        }
    }

    /** Names of the counters for {@link #add}. */
    public enum Counter {
        SUBMITTED, COMPLETED, FAILED, POSTED, REPOSTED, CHUNK_FAILED, STALE, DEFERRED, INVALID_PLACEMENT,
        POST_REFUSED, POLICY_FAULT, FAILOVER_TIMEOUT, FENCE_WAIT
    }

    @Override
    public String toString() {
        return "DecompositionCounters[submitted=" + messagesSubmitted + ", completed=" + messagesCompleted
                + ", failed=" + messagesFailed + ", chunks=" + chunksPosted + ", reposted=" + chunksReposted
                + ", chunkErrors=" + chunksFailed + ", stale=" + staleCompletions + ", deferred="
                + placementsDeferred + ", invalidPlacements=" + invalidPlacements + ", refused=" + postRefused
                + ", policyFaults=" + policyFaults + ", failoverTimeouts=" + failoverTimeouts + ", fenceWaits="
                + fenceWaits + "]";
    }
}
