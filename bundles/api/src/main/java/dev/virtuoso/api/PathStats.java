package dev.virtuoso.api;

import java.net.InetAddress;

/**
 * A snapshot of one path's state and counters. Immutable.
 *
 * @param pathId the path's slot number in its connection
 * @param localAddress the local vNIC address
 * @param remoteAddress the remote vNIC address
 * @param state health
 * @param bytesCompleted bytes of chunks completed successfully on this path
 * @param chunksCompleted chunks completed successfully
 * @param chunksFailed chunks that failed (and were re-posted elsewhere when possible)
 * @param inFlightBytes bytes posted and not yet completed
 * @param estimatedRate bytes per second estimated from recent completions (0 if unknown)
 * @param probedCapacity bytes per second measured by probing (0 if never probed)
 * @param smoothedLatencyNanos smoothed chunk latency (0 if unknown)
 * @param retransmissions packets the transport retransmitted on this path's QP (-1 if the provider
 *     does not count them)
 */
public record PathStats(int pathId, InetAddress localAddress, InetAddress remoteAddress,
        PathState state, long bytesCompleted, long chunksCompleted, long chunksFailed,
        long inFlightBytes, double estimatedRate, double probedCapacity, long smoothedLatencyNanos,
        long retransmissions) {
}
