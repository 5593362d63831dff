package dev.virtuoso.policy.lb.roundrobin;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;

/**
 * One connection's {@value RoundRobinPolicy#NAME} state: the next path in turn and the equal share
 * of the current message (a chunk is never larger than one share, so a message smaller than the
 * congestion-avoidance chunk is still spread over every path).
 */
final class RoundRobinSession implements LoadBalancerSession {
    private final PathStateView paths;
    private long message = Long.MIN_VALUE;
    private long share;
    private int next;

    RoundRobinSession(PathStateView paths) {
        this.paths = paths;
    }

    @Override
    public void onMessageStart(long messageId, long totalBytes) {
        split(messageId, totalBytes);
    }

    @Override
    public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
        if (messageId != message) {
            // swapped in mid-message, or messages interleave: split what is left
            split(messageId, remainingBytes);
        }
        int n = paths.pathCount();
        for (int i = 0; i < n; i++) {
            int p = (next + i) % n;
            if (paths.usable(p)) {
                next = (p + 1) % n;
                out.set(p, share);
                return true;
            }
        }
        return false;
    }

    private void split(long messageId, long bytes) {
        message = messageId;
        int usable = 0;
        int n = paths.pathCount();
        for (int p = 0; p < n; p++) {
            if (paths.usable(p)) {
                usable++;
            }
        }
        share = Math.max(1, (bytes + Math.max(1, usable) - 1) / Math.max(1, usable));
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        // placement does not depend on completions
    }

    @Override
    public void onPathsChanged() {
        int n = paths.pathCount();
        if (n > 0 && next >= n) {
            next = 0;
        }
    }

    @Override
    public void close() {
        // nothing held
    }
}
