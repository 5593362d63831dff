package dev.virtuoso.qpmanager.bench;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/** Benchmark policy: each message in equal shares, one chunk per usable path. */
final class EvenSplit implements LoadBalancerPolicy {
    static final String NAME = "bench-even-split";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
        return new LoadBalancerSession() {
            private long share;
            private int next;

            @Override
            public void onMessageStart(long messageId, long totalBytes) {
                int n = 0;
                for (int p = 0; p < paths.pathCount(); p++) {
                    n += paths.usable(p) ? 1 : 0;
                }
                share = Math.max(1, (totalBytes + Math.max(1, n) - 1) / Math.max(1, n));
            }

            @Override
            public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
                int count = paths.pathCount();
                for (int i = 0; i < count; i++) {
                    int p = (next + i) % count;
                    if (paths.usable(p)) {
                        next = (p + 1) % count;
                        out.set(p, share);
                        return true;
                    }
                }
                return false;
            }

            @Override
            public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
            }

            @Override
            public void onPathsChanged() {
            }

            @Override
            public void close() {
            }
        };
    }
}
