package dev.virtuoso.pathmonitor.api;

/**
 * A snapshot of one path as the monitor sees it; filled by {@link PathMonitor#statistics} from any
 * thread. Mutable and reusable so that periodic readers do not allocate.
 */
public final class PathStatistics {
    /** Path slot. */
    public int path;
    /** Health verdict. */
    public PathHealth health = PathHealth.DOWN;
    /** Bytes of chunks completed successfully. */
    public long bytesCompleted;
    /** Chunks completed successfully. */
    public long chunksCompleted;
    /** Chunks that ended in an error (including flushes). */
    public long chunksFailed;
    /** Bytes posted and not completed (data and probes). */
    public long inFlightBytes;
    /** Passive rate estimate in bytes per second, 0 if unknown. */
    public double estimatedRate;
    /** Capacity from the last successful probe in bytes per second, 0 if never probed. */
    public double probedCapacity;
    /** Smoothed chunk latency in nanoseconds, 0 if unknown. */
    public long smoothedLatencyNanos;
    /** Probe flows completed successfully. */
    public long probesCompleted;
    /** Probe flows that failed. */
    public long probesFailed;

    @Override
    public String toString() {
        return "PathStatistics[path=" + path + ", health=" + health + ", bytesCompleted=" + bytesCompleted
                + ", chunksCompleted=" + chunksCompleted + ", chunksFailed=" + chunksFailed
                + ", inFlightBytes=" + inFlightBytes + ", estimatedRate=" + (long) estimatedRate
                + ", probedCapacity=" + (long) probedCapacity + ", latencyNanos=" + smoothedLatencyNanos
                + ", probes=" + probesCompleted + "/" + probesFailed + "]";
    }
}
