package dev.virtuoso.policy.cc.chunkprobe.api;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/** Service of the cc-chunkprobe bundle: chunk-size statistics of its live sessions. Thread-safe. */
@ProviderType
public interface ChunkProbeStatistics {

    /** @return identifiers of the connections that currently use cc-chunkprobe */
    List<String> connections();

    /**
     * @param connectionId a connection identifier
     * @return one entry per path slot, in slot order; empty if the connection has no live
     *     cc-chunkprobe session (values are a recent, not necessarily atomic, view)
     */
    List<ChunkSizeStats> statistics(String connectionId);
}
