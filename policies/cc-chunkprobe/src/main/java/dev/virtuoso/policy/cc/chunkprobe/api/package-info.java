/**
 * Statistics of the {@code cc-chunkprobe} congestion-avoidance policy: the chunk size each path
 * of each connection has found safe, and the maximum and average sizes of its completed chunks (the
 * paper's Table 2). Obtain the {@link dev.virtuoso.policy.cc.chunkprobe.api.ChunkProbeStatistics}
 * service.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package dev.virtuoso.policy.cc.chunkprobe.api;
