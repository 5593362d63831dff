package dev.virtuoso.spi.policy;

/**
 * A load balancer's answer for the next chunk: which path, and at most how many bytes. Mutable and
 * reused by the core (no allocation per chunk); the session fills it in
 * {@link LoadBalancerSession#place}.
 */
public final class ChunkPlacement {
    private int path = -1;
    private long maxBytes = Long.MAX_VALUE;

    /** @return the chosen path slot */
    public int path() {
        return path;
    }

    /** @return upper bound for this chunk's size chosen by the load balancer */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * Chooses a path.
     *
     * @param path path slot, must be usable
     * @param maxBytes the most this chunk may carry according to the load balancer (the core also
     *     applies the congestion-avoidance limit and the bytes remaining); must be positive
     * @return this
     */
    public ChunkPlacement set(int path, long maxBytes) {
        this.path = path;
        this.maxBytes = maxBytes;
        return this;
    }

    /** Resets to "no decision". */
    public void clear() {
        path = -1;
        maxBytes = Long.MAX_VALUE;
    }
}
