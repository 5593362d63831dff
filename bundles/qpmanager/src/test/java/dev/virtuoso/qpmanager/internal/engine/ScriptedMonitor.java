package dev.virtuoso.qpmanager.internal.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import dev.virtuoso.api.PathState;
import dev.virtuoso.pathmonitor.api.ChunkLimits;
import dev.virtuoso.pathmonitor.api.PathHealth;
import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.PathStatistics;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.spi.policy.ChunkOutcome;

/**
 * A path monitor whose answers the test sets: the probes it hands out (path, bytes), which paths
 * are usable, the capacity it reports; it records the hooks the core calls (not the queries) and
 * throws from the method named {@link #throwOn}.
 */
final class ScriptedMonitor implements PathMonitor {
    final List<String> events = new ArrayList<>();
    final Deque<long[]> probes = new ArrayDeque<>();
    final boolean[] usable = new boolean[8];
    int paths = 8;
    double capacity;
    String throwOn;
    ChunkLimits limits;
    /** Whether {@link #seedCapacity} takes what it is offered. */
    boolean takeSeeds;
    /** Offers seen ("path capacity ageNanos"); never cleared by the rig. */
    final List<String> seeds = new ArrayList<>();
    /** What {@link #capacityMeasurements} answers, per path. */
    final long[] measurements = new long[8];

    private void call(String method) {
        if (method.equals(throwOn)) {
            throw new IllegalStateException("scripted " + method);
        }
    }

    /** @return the probe completions recorded, in order */
    List<String> probeEvents() {
        return events.stream().filter(e -> e.startsWith("probeCompleted")).toList();
    }

    @Override
    public void tick(long nowNanos) {
        call("tick");
        events.add("tick " + nowNanos);
    }

    @Override
    public void onPathAdded(int path) {
        call("onPathAdded");
        events.add("added " + path);
    }

    @Override
    public void onPathState(int path, PathState state) {
        call("onPathState");
        events.add("state " + path + " " + state);
    }

    @Override
    public void onChunkPosted(int path, long bytes) {
        call("onChunkPosted");
        events.add("posted " + path + " " + bytes);
    }

    @Override
    public void onChunkCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        call("onChunkCompleted");
        events.add("completed " + path + " " + bytes + " " + latencyNanos + " " + outcome);
    }

    @Override
    public void chunkLimits(ChunkLimits l) {
        call("chunkLimits");
        limits = l;
    }

    @Override
    public boolean nextProbe(ProbeRequest out) {
        call("nextProbe");
        long[] p = probes.poll();
        if (p == null) {
            return false;
        }
        out.set((int) p[0], p[1]);
        return true;
    }

    @Override
    public void onProbeCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        call("onProbeCompleted");
        events.add("probeCompleted " + path + " " + bytes + " " + latencyNanos + " " + outcome);
    }

    @Override
    public PathHealth health(int path) {
        return usable[path] ? PathHealth.HEALTHY : PathHealth.DOWN;
    }

    @Override
    public boolean seedCapacity(int path, double bytesPerSecond, long ageNanos) {
        call("seedCapacity");
        seeds.add(path + " " + (long) bytesPerSecond + " " + ageNanos);
        return takeSeeds;
    }

    @Override
    public long capacityMeasurements(int path) {
        return measurements[path];
    }

    @Override
    public void requestProbe(int path) {
        call("requestProbe");
        events.add("requestProbe " + path);
    }

    @Override
    public PathStatistics statistics(int path, PathStatistics out) {
        call("statistics");
        out.path = path;
        out.bytesCompleted = 1000;
        out.chunksCompleted = 10;
        out.chunksFailed = 2;
        out.inFlightBytes = 300;
        out.estimatedRate = 4e9;
        out.probedCapacity = 5e9;
        out.smoothedLatencyNanos = 7000;
        return out;
    }

    @Override
    public void close() {
        call("close");
        events.add("close");
    }

    @Override
    public int pathCount() {
        return paths;
    }

    @Override
    public boolean usable(int path) {
        call("usable");
        return usable[path];
    }

    @Override
    public long inFlightBytes(int path) {
        return 0;
    }

    @Override
    public int inFlightChunks(int path) {
        return 0;
    }

    @Override
    public double probedCapacity(int path) {
        return capacity;
    }

    @Override
    public double estimatedRate(int path) {
        return 0;
    }

    @Override
    public long smoothedLatencyNanos(int path) {
        return 0;
    }

    @Override
    public long completedBytes(int path) {
        return 0;
    }

    @Override
    public int consecutiveErrors(int path) {
        return 0;
    }

    @Override
    public long nowNanos() {
        return 0;
    }
}
