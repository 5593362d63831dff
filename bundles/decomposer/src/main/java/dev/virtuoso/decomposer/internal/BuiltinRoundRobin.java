package dev.virtuoso.decomposer.internal;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;

/**
 * The core's own load balancer: the next path, in slot order, that is usable and has room in its
 * window. Used until a policy bundle is bound and whenever a chosen policy goes away.
 */
final class BuiltinRoundRobin implements LoadBalancerSession {
    private final PathGate gate;
    private int next;

    BuiltinRoundRobin(PathGate gate) {
        this.gate = gate;
    }

    @Override
    public void onMessageStart(long messageId, long totalBytes) {
        // round robin needs no per-message plan
    }

    @Override
    public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
        int p = pick();
        if (p < 0) {
            return false;
        }
        out.set(p, Long.MAX_VALUE);
        return true;
    }

    /** @return the next open path, advancing the cursor past it, or -1 if none is open */
    int pick() {
        int n = gate.pathCount();
        for (int i = 0; i < n; i++) {
            int p = (next + i) % n;
            if (gate.open(p)) {
                next = (p + 1) % n;
                return p;
            }
        }
        return -1;
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        // stateless apart from the cursor
    }

    @Override
    public void onPathsChanged() {
        // the cursor is taken modulo the current path count
    }

    @Override
    public void close() {
        // owned by the decomposition; nothing to release
    }
}
