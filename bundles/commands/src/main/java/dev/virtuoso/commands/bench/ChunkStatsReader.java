package dev.virtuoso.commands.bench;

import java.util.ArrayList;
import java.util.List;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

import dev.virtuoso.policy.cc.chunkprobe.api.ChunkProbeStatistics;
import dev.virtuoso.policy.cc.chunkprobe.api.ChunkSizeStats;

/**
 * Reads the chunk sizes cc-chunkprobe found on a connection's paths (its
 * {@link ChunkProbeStatistics} service; the paper's Table 2). The only class of the bench that
 * touches the policy's API, whose package this bundle imports optionally: callers use it only when
 * the connection runs cc-chunkprobe, which the bench's features always install. Stateless.
 */
final class ChunkStatsReader {

    /** The policy name whose statistics this reads. */
    static final String POLICY = "cc-chunkprobe";

    /**
     * One path's chunk sizes.
     *
     * @param path path slot
     * @param phase the probe's phase (BINARY, LINEAR, STEADY)
     * @param safeBytes the largest chunk size proven safe
     * @param maxCompletedBytes the largest chunk that completed
     * @param avgCompletedBytes mean size of the completed chunks
     * @param completed chunks completed
     * @param losses chunks that ended in RETRY_EXCEEDED
     */
    record PathChunks(int path, String phase, long safeBytes, long maxCompletedBytes, long avgCompletedBytes,
            long completed, long losses) {
    }

    private ChunkStatsReader() {
    }

    /**
     * @param ctx the commands bundle's context, or {@code null}
     * @param connectionId the connection
     * @return its paths' statistics; empty if the service or the connection's session is absent
     */
    static List<PathChunks> read(BundleContext ctx, String connectionId) {
        List<PathChunks> out = new ArrayList<>();
        if (ctx == null) {
            return out;
        }
        ServiceReference<ChunkProbeStatistics> ref = ctx.getServiceReference(ChunkProbeStatistics.class);
        if (ref == null) {
            return out;
        }
        ChunkProbeStatistics stats = ctx.getService(ref);
        if (stats == null) {
            return out;
        }
        try {
            for (ChunkSizeStats s : stats.statistics(connectionId)) {
                out.add(new PathChunks(s.path(), s.phase(), s.safeChunkBytes(), s.maxCompletedChunkBytes(),
                        s.averageCompletedChunkBytes(), s.chunksCompleted(), s.losses()));
            }
        } finally {
            ctx.ungetService(ref);
        }
        return out;
    }
}
