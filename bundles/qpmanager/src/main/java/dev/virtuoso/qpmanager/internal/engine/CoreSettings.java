package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.api.ConnectOptions;

/**
 * Connector-wide settings that are not per-connection options (set by ConfigAdmin in OSGi).
 *
 * @param defaultProvider verbs provider used when the options name none; {@code null} or empty: the
 *     one the provider lookup prefers (in OSGi the highest service ranking)
 * @param sendQueueDepth send-queue depth of every path QP
 * @param maxPaths most paths one connection may have at once, at most {@link ConnectOptions#MAX_PATHS}
 *     (CQ and tables are sized by it; a removed path's slot is reused)
 * @param builtinChunksPerPath window of the built-in congestion avoidance, in chunks per path
 * @param heartbeatMillis control-channel idle time after which a PING is sent
 * @param livenessMillis control-channel silence after which the peer is declared gone
 */
public record CoreSettings(String defaultProvider, int sendQueueDepth, int maxPaths, int builtinChunksPerPath,
        long heartbeatMillis, long livenessMillis) {

    /** The defaults: the preferred provider, depth 128, 32 paths, 4 chunks per path, 1 s heartbeat, 10 s liveness. */
    public static final CoreSettings DEFAULTS = new CoreSettings(null, 128, ConnectOptions.MAX_PATHS, 4, 1000,
            10_000);

    public CoreSettings {
        defaultProvider = defaultProvider == null || defaultProvider.isBlank() ? null : defaultProvider.trim();
        if (sendQueueDepth < 1 || maxPaths < 1 || maxPaths > ConnectOptions.MAX_PATHS || builtinChunksPerPath < 1 || heartbeatMillis < 1
                || livenessMillis <= heartbeatMillis) {
            throw new IllegalArgumentException("invalid core settings: depth=" + sendQueueDepth + " maxPaths="
                    + maxPaths + " chunksPerPath=" + builtinChunksPerPath + " heartbeat=" + heartbeatMillis
                    + " liveness=" + livenessMillis);
        }
    }
}
