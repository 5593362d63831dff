package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/** Bootstrap connections per source address (pending or in a handshake), capped per source. */
final class SourceCounts {
    private final ConcurrentHashMap<InetAddress, Integer> counts = new ConcurrentHashMap<>();
    private final int max;

    SourceCounts(int max) {
        this.max = max;
    }

    /** @return true if {@code source} had fewer than the cap and now holds one more */
    boolean reserve(InetAddress source) {
        boolean[] ok = new boolean[1];
        counts.compute(source, (a, n) -> {
            int c = n == null ? 0 : n;
            ok[0] = c < max;
            return ok[0] ? c + 1 : c;
        });
        return ok[0];
    }

    /** Gives back one connection of {@code source}. */
    void release(InetAddress source) {
        counts.computeIfPresent(source, (a, n) -> n <= 1 ? null : n - 1);
    }

    /** @return connections {@code source} holds now */
    int of(InetAddress source) {
        return counts.getOrDefault(source, 0);
    }
}
