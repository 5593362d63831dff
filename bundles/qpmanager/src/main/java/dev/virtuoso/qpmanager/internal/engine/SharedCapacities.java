package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * The latest probed capacity of each path pair, shared by the connections of one {@link Connector}
 * (its owner, which clears it on close and forgets a provider's entries when the provider goes
 * away), so that a connection between the same two vNICs as an earlier one need not probe the link
 * again: its path monitor decides whether a measurement is recent enough
 * ({@code PathMonitor.seedCapacity}).
 *
 * <p>A measurement is the capacity one probe flow measured on the path pair, the link's, not a
 * share per connection: the load balancers weigh a connection's paths against each other by it.
 *
 * <p>Thread-safe: a {@link ConcurrentHashMap} of immutable measurements, read when a path is added
 * (handshake threads, engine agents) and written when a probe flow measured (engine agents); a
 * newer measurement replaces an older one, never the reverse. Bounded: past {@link #MAX_ENTRIES}
 * the oldest entries are dropped.
 */
final class SharedCapacities {
    /** Most path pairs remembered (a host pair per remote vNIC; each entry about 200 bytes). */
    static final int MAX_ENTRIES = 4096;

    /**
     * A path pair, one direction: this side's provider instance and device, local and remote vNIC,
     * path MTU. A re-created provider (a new instance) or another MTU is another pair: its
     * measured rate may differ.
     */
    record PathPair(VerbsProvider provider, String device, InetAddress local, InetAddress remote, int mtu) {
        PathPair {
            Objects.requireNonNull(provider, "provider");
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(local, "local");
            Objects.requireNonNull(remote, "remote");
        }

        @Override
        public boolean equals(Object o) {
            // providers by identity: a re-bound provider's links may be configured differently
            return o instanceof PathPair p && p.provider == provider && p.device.equals(device) && p.local.equals(local)
                    && p.remote.equals(remote) && p.mtu == mtu;
        }

        @Override
        public int hashCode() {
            return Objects.hash(System.identityHashCode(provider), device, local, remote, mtu);
        }
    }

    /** One probe flow's result: bytes per second, measured at {@code measuredAtNanos} ({@link System#nanoTime()}). */
    record Measurement(double bytesPerSecond, long measuredAtNanos) {
    }

    /**
     * The entries one connection uses: those of its provider and device.
     *
     * @param capacities the connector's entries
     * @param provider the connection's provider instance
     * @param device the name of the device it opened
     */
    record Scope(SharedCapacities capacities, VerbsProvider provider, String device) {
        /** @return the path pair of a path's slot, this direction */
        PathPair pair(PathSlot slot) {
            return new PathPair(provider, device, slot.local, slot.remote, slot.mtu);
        }
    }

    private final Map<PathPair, Measurement> latest = new ConcurrentHashMap<>();

    /** @return the entries of one provider's device */
    Scope scope(VerbsProvider provider, String device) {
        return new Scope(this, provider, device);
    }

    /** @return the latest measurement of the pair, or {@code null} */
    Measurement find(PathPair pair) {
        return latest.get(pair);
    }

    /**
     * Records a measurement unless one measured later is already there.
     *
     * @param pair the path pair probed
     * @param bytesPerSecond the probed capacity, positive
     * @param measuredAtNanos when ({@link System#nanoTime()})
     */
    void record(PathPair pair, double bytesPerSecond, long measuredAtNanos) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            return;
        }
        Measurement m = new Measurement(bytesPerSecond, measuredAtNanos);
        latest.merge(pair, m, (old, now) -> now.measuredAtNanos - old.measuredAtNanos >= 0 ? now : old);
        if (latest.size() > MAX_ENTRIES) {
            dropOldest();
        }
    }

    /** Rare (more path pairs than the bound): one scan per entry too many. */
    private void dropOldest() {
        while (latest.size() > MAX_ENTRIES) {
            Map.Entry<PathPair, Measurement> oldest = null;
            for (Map.Entry<PathPair, Measurement> e : latest.entrySet()) {
                if (oldest == null || e.getValue().measuredAtNanos - oldest.getValue().measuredAtNanos < 0) {
                    oldest = e;
                }
            }
            if (oldest == null) {
                return;
            }
            latest.remove(oldest.getKey(), oldest.getValue());
        }
    }

    /** Drops the entries of a provider that went away (a re-bound one is another instance). */
    void forget(VerbsProvider provider) {
        latest.keySet().removeIf(p -> p.provider == provider);
    }

    /** Drops every entry (the connector closes). */
    void clear() {
        latest.clear();
    }

    int size() {
        return latest.size();
    }
}
