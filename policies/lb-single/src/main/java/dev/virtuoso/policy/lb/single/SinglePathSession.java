package dev.virtuoso.policy.lb.single;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;

/** One connection's {@value SinglePathPolicy#NAME} state: none beyond the path view. */
final class SinglePathSession implements LoadBalancerSession {
    private final PathStateView paths;

    SinglePathSession(PathStateView paths) {
        this.paths = paths;
    }

    @Override
    public void onMessageStart(long messageId, long totalBytes) {
        // the choice does not depend on the message
    }

    @Override
    public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
        int n = paths.pathCount();
        for (int p = 0; p < n; p++) {
            if (paths.usable(p)) {
                out.set(p, Long.MAX_VALUE);
                return true;
            }
        }
        return false;
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        // stateless: a failed path becomes unusable in the view
    }

    @Override
    public void onPathsChanged() {
        // stateless
    }

    @Override
    public void close() {
        // nothing held
    }
}
