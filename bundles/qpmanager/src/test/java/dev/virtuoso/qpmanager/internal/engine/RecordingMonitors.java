package dev.virtuoso.qpmanager.internal.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.virtuoso.api.PathState;
import dev.virtuoso.pathmonitor.api.PathHealth;
import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.pathmonitor.api.PathStatistics;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.pathmonitor.internal.PathMonitorService;
import dev.virtuoso.spi.policy.ChunkOutcome;

/**
 * The real path monitor factory, with every monitor wrapped so that a test can see the core's
 * calls in order (one list for both sides): path states, data posts, probe WRITEs handed out,
 * probe completions (with the monitor's count of probe flows completed right after), shared
 * capacities offered ("seed": taken or refused), and any call made after {@code close()}.
 */
final class RecordingMonitors implements PathMonitorFactory {
    /** One hook call the core made. */
    record Event(String connection, String kind, int path, String detail, long probeFlowsDone) {
    }

    final PathMonitorService real = new PathMonitorService();
    final List<Event> events = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger callsAfterClose = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    final AtomicInteger created = new AtomicInteger();
    /**
     * Until this {@code System.nanoTime()}, the connecting side's monitors ask for another probe
     * flow on a path each time one of its probe WRITEs completes, so their connect-time probing
     * (and with it PROBES_DONE) lasts at least that long. 0: off.
     */
    volatile long connectingSideProbesUntilNanos;

    @Override
    public PathMonitor newMonitor(String connectionId, Map<String, Object> properties, long probeScratchBytes) {
        created.incrementAndGet();
        boolean connecting = !Boolean.FALSE.equals(properties.get(PathMonitorLink.DEFER_PROBES_PROPERTY));
        return new Recording(connectionId, real.newMonitor(connectionId, properties, probeScratchBytes), connecting);
    }

    /** @return events of one connection, kind and path, in order */
    List<Event> of(String connection, String kind, int path) {
        synchronized (events) {
            return events.stream().filter(e -> e.connection.equals(connection) && e.kind.equals(kind)
                    && e.path == path).toList();
        }
    }

    /** @return probe flows completed on a path of a connection, as last recorded */
    long flowsDone(String connection, int path) {
        List<Event> probes = of(connection, "probe", path);
        return probes.isEmpty() ? 0 : probes.get(probes.size() - 1).probeFlowsDone();
    }

    /** @return the events of one connection, in order */
    List<Event> of(String connection) {
        synchronized (events) {
            return events.stream().filter(e -> e.connection.equals(connection)).toList();
        }
    }

    private final class Recording implements PathMonitor {
        private final String id;
        private final PathMonitor m;
        private final PathStatistics st = new PathStatistics();
        private final boolean connecting;
        private volatile boolean isClosed;

        Recording(String id, PathMonitor m, boolean connecting) {
            this.id = id;
            this.m = m;
            this.connecting = connecting;
        }

        private void check() {
            if (isClosed) {
                callsAfterClose.incrementAndGet();
            }
        }

        private long flowsDone(int path) {
            return path >= 0 && path < m.pathCount() ? m.statistics(path, st).probesCompleted : -1;
        }

        @Override
        public void tick(long nowNanos) {
            check();
            m.tick(nowNanos);
        }

        @Override
        public void onPathAdded(int path) {
            check();
            m.onPathAdded(path);
            events.add(new Event(id, "added", path, "", flowsDone(path)));
        }

        @Override
        public void onPathState(int path, PathState state) {
            check();
            m.onPathState(path, state);
            events.add(new Event(id, "state", path, state.name(), flowsDone(path)));
        }

        @Override
        public void onChunkPosted(int path, long bytes) {
            check();
            m.onChunkPosted(path, bytes);
            events.add(new Event(id, "post", path, Long.toString(bytes), flowsDone(path)));
        }

        @Override
        public void onChunkCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
            check();
            m.onChunkCompleted(path, bytes, latencyNanos, outcome);
            events.add(new Event(id, "complete", path, outcome.name(), flowsDone(path)));
        }

        @Override
        public boolean nextProbe(ProbeRequest out) {
            check();
            boolean issued = m.nextProbe(out);
            if (issued) {
                events.add(new Event(id, "issue", out.path(), Long.toString(out.bytes()), flowsDone(out.path())));
            }
            return issued;
        }

        @Override
        public void onProbeCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
            check();
            m.onProbeCompleted(path, bytes, latencyNanos, outcome);
            events.add(new Event(id, "probe", path, outcome.name(), flowsDone(path)));
            long until = connectingSideProbesUntilNanos;
            if (connecting && until != 0 && System.nanoTime() - until < 0) {
                m.requestProbe(path);
            }
        }

        @Override
        public boolean seedCapacity(int path, double bytesPerSecond, long ageNanos) {
            check();
            boolean taken = m.seedCapacity(path, bytesPerSecond, ageNanos);
            events.add(new Event(id, "seed", path, taken ? "taken" : "refused", flowsDone(path)));
            return taken;
        }

        @Override
        public long capacityMeasurements(int path) {
            check();
            return m.capacityMeasurements(path);
        }

        @Override
        public PathHealth health(int path) {
            check();
            return m.health(path);
        }

        @Override
        public void requestProbe(int path) {
            check();
            m.requestProbe(path);
        }

        @Override
        public PathStatistics statistics(int path, PathStatistics out) {
            check();
            return m.statistics(path, out);
        }

        @Override
        public void close() {
            if (!isClosed) {
                isClosed = true;
                closed.incrementAndGet();
                m.close();
            }
        }

        @Override
        public int pathCount() {
            check();
            return m.pathCount();
        }

        @Override
        public boolean usable(int path) {
            check();
            return m.usable(path);
        }

        @Override
        public long inFlightBytes(int path) {
            check();
            return m.inFlightBytes(path);
        }

        @Override
        public int inFlightChunks(int path) {
            check();
            return m.inFlightChunks(path);
        }

        @Override
        public double probedCapacity(int path) {
            check();
            return m.probedCapacity(path);
        }

        @Override
        public double estimatedRate(int path) {
            check();
            return m.estimatedRate(path);
        }

        @Override
        public long smoothedLatencyNanos(int path) {
            check();
            return m.smoothedLatencyNanos(path);
        }

        @Override
        public long completedBytes(int path) {
            check();
            return m.completedBytes(path);
        }

        @Override
        public int consecutiveErrors(int path) {
            check();
            return m.consecutiveErrors(path);
        }

        @Override
        public long nowNanos() {
            check();
            return m.nowNanos();
        }
    }
}
