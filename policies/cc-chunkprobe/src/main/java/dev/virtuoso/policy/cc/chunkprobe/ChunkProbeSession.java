package dev.virtuoso.policy.cc.chunkprobe;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

import dev.virtuoso.policy.cc.chunkprobe.api.ChunkSizeStats;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.PathStateView;

/**
 * One connection's {@value ChunkProbePolicy#NAME} state, per path:
 * <ul>
 * <li>BINARY: start at {@code initialChunkBytes}; the size doubles once a level (at least
 * {@code levelChunks} full-size chunks and {@code levelBytes}) has completed at it.</li>
 * <li>On RETRY_EXCEEDED of a chunk larger than the largest proven size: back to that proven size
 * (the previous one), then LINEAR: each level completed adds a step of a quarter of the proven size
 * (at most {@code linearStepBytes}).</li>
 * <li>A second such loss: back to the proven size, STEADY (threshold found). After
 * {@code reprobeAfterChunks} successes a step up is tried again: if its level completes the path got
 * better and probing starts over in BINARY (the size grows back); if it fails, STEADY again and the
 * next try waits twice as long (at most {@value #MAX_REPROBE_BACKOFF} times). Each wait is lengthened
 * by a random 0..{@code reprobeJitterPercent} of it, per path, so that paths which started together
 * do not all overflow and go through a QP repair at the same moment.</li>
 * <li>RETRY_EXCEEDED of a chunk no larger than the proven size (conditions got worse): halve and
 * go LINEAR. Other outcomes (FLUSHED after a QP failure, RNR, errors) say nothing about size.</li>
 * <li>A level whose chunks completed {@code slowdownPercent} slower (bytes per second of chunk
 * latency) than the best level before counts as a loss of its size, without failing a WR: with
 * retries, go-back-N hides losses from the completions but not from their latency, and its damage
 * (the WR resent from the lost packet on) grows with the chunk.</li>
 * <li>While none of a path's chunks ended in RETRY_EXC_ERR (retries hide its losses), a level that
 * tested a size above the proven one must also be {@code gainPercent} faster than the best level
 * before: a size merely not slower is not worth what it resends per loss, and level-to-level noise
 * would otherwise let sizes climb. In STEADY the reference is smoothed over levels.</li>
 * <li>Two levels in a row at or below the proven size, each {@code collapsePercent} slower than the
 * level that proved it, halve it like a RETRY_EXC_ERR there (go-back-N collapse on a shallow buffer:
 * the size was safe until a larger one overflowed it).</li>
 * </ul>
 * Each level's rate and the state it was measured in are logged at DEBUG.
 * Chunks smaller than the current size prove nothing if they are message tails (at most half the
 * size, or no larger than the proven size); a chunk between those and the size (the load balancer
 * sized it by rate) counts toward the level, and the level proves the largest chunk it completed.
 * {@code window} chunks may be outstanding per path (default 2), posted as completions arrive (the
 * paper's WRs "posted in turns followed by success CQEs" is window 1): with two, a lost last packet of
 * a chunk is NAKed as soon as the next chunk's first packet arrives, instead of leaving the path idle
 * for the whole ACK timeout. A path one of whose chunks ended in RETRY_EXC_ERR keeps
 * {@code windowAfterLoss} (default 1) from then on: its losses come from bursts, so a link sees one
 * chunk at a time. With more than one outstanding, a level's
 * rate is measured over the time the path was busy (a chunk counts from the later of its post and
 * the previous completion), since latencies then include waiting behind the chunk before.
 */
final class ChunkProbeSession implements CongestionAvoidanceSession {
    /** Each level's rate and what the probe made of it, at DEBUG (once per level, not per chunk). */
    private static final System.Logger LOG = System.getLogger(ChunkProbeSession.class.getName());
    static final int BINARY = 0;
    static final int LINEAR = 1;
    static final int STEADY = 2;
    private static final String[] PHASES = {"BINARY", "LINEAR", "STEADY"};
    /** Failed re-probes double the wait before the next, up to this factor of reprobeAfterChunks. */
    static final int MAX_REPROBE_BACKOFF = 64;

    private static final int F_CURRENT = 0;
    private static final int F_SAFE = 1;
    private static final int F_MAX = 2;
    private static final int F_SUM = 3;
    private static final int F_DONE = 4;
    private static final int F_LOSSES = 5;
    private static final int F_PHASE = 6;
    private static final int FIELDS = 7;

    private final String connectionId;
    private final PathStateView paths;
    private final ChunkProbeSettings s;
    private final Set<ChunkProbeSession> registry;
    private final LongSupplier clock;
    private long[] size = new long[0];
    private long[] safe = new long[0];
    private int[] phase = new int[0];
    private long[] steadyRun = new long[0];
    private long[] reprobeWait = new long[0];
    /** Factor of reprobeAfterChunks the next wait is based on: doubled by each failed re-probe. */
    private long[] reprobeBackoff = new long[0];
    /** Draws the re-probe waits' jitter; seeded by the connection, so a run is reproducible. */
    private final SplittableRandom jitter;
    private boolean[] reprobing = new boolean[0];
    private int[] levelCount = new int[0];
    private long[] levelBytes = new long[0];
    private long[] levelNanos = new long[0];
    /** Largest chunk completed in the current level: at most the size, less if the load balancer cut them. */
    private long[] levelMax = new long[0];
    /** Best level rate (bytes per nanosecond of chunk latency) since the last back-off; 0 = none. */
    private double[] bestRate = new double[0];
    /** Rate of the level that proved the safe size; 0 = none yet since it changed. */
    private double[] provenRate = new double[0];
    /** Levels in a row at or below the safe size that were collapsePercent slower than provenRate. */
    private int[] slowLevels = new int[0];
    private long[] maxDone = new long[0];
    private long[] sumDone = new long[0];
    private long[] done = new long[0];
    private long[] losses = new long[0];
    /** A chunk of the path ended in RETRY_EXC_ERR: its window is windowAfterLoss from then on. */
    private boolean[] overflowed = new boolean[0];
    /** Latest completion time of the path (clock): with overlapping chunks, the end of its busy time so far. */
    private long[] busyUntil = new long[0];
    /** Copy of the statistics for other threads; replaced (never resized) when paths are added. */
    private volatile AtomicLongArray published = new AtomicLongArray(0);

    /**
     * @param registry the policy's live sessions: this one is added now and removed on close
     */
    ChunkProbeSession(String connectionId, PathStateView paths, ChunkProbeSettings settings,
            Set<ChunkProbeSession> registry, LongSupplier clock) {
        this.connectionId = connectionId;
        this.clock = clock;
        this.paths = paths;
        this.s = settings;
        this.registry = registry;
        this.jitter = new SplittableRandom(connectionId.hashCode());
        fit();
        registry.add(this);
    }

    String connectionId() {
        return connectionId;
    }

    @Override
    public long maxChunkBytes(int path) {
        if (path >= size.length) {
            fit();
        }
        return path < size.length ? size[path] : s.initialChunkBytes();
    }

    @Override
    public int maxOutstandingChunks(int path) {
        return path >= 0 && path < overflowed.length && overflowed[path] ? s.windowAfterLoss() : s.window();
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        if (path >= size.length) {
            fit();
        }
        if (path < 0 || path >= size.length) {
            return;
        }
        long busy = busyNanos(path, latencyNanos);
        if (outcome == ChunkOutcome.SUCCESS) {
            succeeded(path, bytes, busy);
        } else if (outcome == ChunkOutcome.RETRY_EXCEEDED) {
            lost(path, bytes);
        } else {
            return;
        }
        publish(path);
    }

    /**
     * The time the chunk kept the path busy beyond the chunks before it: its latency while one chunk
     * is outstanding, the part of it after the previous completion when several overlap (their
     * latencies include waiting behind each other, which is not time the path lost).
     */
    private long busyNanos(int p, long latencyNanos) {
        if (maxOutstandingChunks(p) <= 1) {
            return latencyNanos;
        }
        long now = clock.getAsLong();
        long start = Math.max(now - Math.max(0, latencyNanos), busyUntil[p]);
        busyUntil[p] = Math.max(busyUntil[p], now);
        return Math.max(0, now - start);
    }

    private void succeeded(int p, long bytes, long latencyNanos) {
        done[p]++;
        sumDone[p] += bytes;
        maxDone[p] = Math.max(maxDone[p], bytes);
        if (bytes < size[p] && (bytes <= size[p] / 2 || bytes <= safe[p])) {
            // a message tail proves nothing about the current size; a chunk the load balancer cut
            // below it (lb-adaptive sizes chunks by rate) still tests the size if it exceeds the
            // proven one, or the level would never complete
            return;
        }
        if (phase[p] == STEADY && s.reprobeAfterChunks() > 0 && ++steadyRun[p] >= reprobeWait[p]) {
            steadyRun[p] = 0;
            reprobing[p] = true;
            phase[p] = LINEAR;
            grow(p);
            return;
        }
        levelCount[p]++;
        levelMax[p] = Math.max(levelMax[p], Math.min(bytes, size[p])); // posted before a back-off: no more than the size
        levelBytes[p] += bytes;
        levelNanos[p] += Math.max(1, latencyNanos);
        if (levelCount[p] < s.levelChunks() || levelBytes[p] < s.levelBytes()) {
            return;
        }
        double rate = (double) levelBytes[p] / levelNanos[p];
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, String.format(java.util.Locale.ROOT,
                    "%s path %d %s level: %d chunks, largest %d B, %.1f Mbit/s (best %.1f), safe %d B",
                    connectionId, p, PHASES[phase[p]], levelCount[p], levelMax[p], rate * 8e3, bestRate[p] * 8e3,
                    safe[p]));
        }
        if (collapsed(p, rate)) {
            return;
        }
        if (phase[p] == STEADY) {
            // the reference a re-probe is measured against, kept current but smoothed: against
            // one unlucky level a lucky re-probe would look faster
            bestRate[p] = bestRate[p] > 0 ? (3 * bestRate[p] + rate) / 4 : rate;
            resetLevel(p);
            return;
        }
        if (bestRate[p] > 0 && rate < bestRate[p] * (100 - s.slowdownPercent()) / 100
                || s.gainPercent() > 0 && !overflowed[p] && bestRate[p] > 0 && levelMax[p] > safe[p]
                        && rate < bestRate[p] * (100 + s.gainPercent()) / 100) {
            backOff(p); // slower than a smaller size: go-back-N damage outweighs the larger chunk
            return;
        }
        bestRate[p] = Math.max(bestRate[p], rate);
        if (levelMax[p] > safe[p] || provenRate[p] == 0) {
            provenRate[p] = rate;
        }
        safe[p] = Math.max(safe[p], levelMax[p]); // the largest chunk the level proved
        if (reprobing[p]) {
            // the path got better: find its new threshold from here
            reprobing[p] = false;
            reprobeBackoff[p] = 1;
            reprobeWait[p] = jittered(s.reprobeAfterChunks());
            phase[p] = BINARY;
        }
        grow(p);
    }

    /**
     * Two levels in a row at or below the proven size, each {@code collapsePercent} slower than the
     * level that proved it: the size is no longer safe (with retries a shallow buffer can fall
     * into go-back-N resending whole windows into a full queue, and stay there), so it is halved as
     * after a RETRY_EXC_ERR at the proven size, without any WR failing.
     */
    private boolean collapsed(int p, double rate) {
        if (s.collapsePercent() >= 100 || provenRate[p] == 0 || levelMax[p] > safe[p]) {
            return false;
        }
        if (rate >= provenRate[p] * (100 - s.collapsePercent()) / 100) {
            slowLevels[p] = 0;
            return false;
        }
        if (++slowLevels[p] < 2) {
            return false;
        }
        shrink(p, safe[p]);
        return true;
    }

    /** Halves {@code bytes} into the new proven size and probes linearly from there. */
    private void shrink(int p, long bytes) {
        size[p] = Math.max(s.minChunkBytes(), bytes / 2);
        safe[p] = size[p];
        phase[p] = LINEAR;
        reprobing[p] = false;
        steadyRun[p] = 0;
        bestRate[p] = 0;
        provenRate[p] = 0;
        slowLevels[p] = 0;
        resetLevel(p);
    }

    private void grow(int p) {
        long next = phase[p] == BINARY ? size[p] * 2 : size[p] + linearStep(p);
        size[p] = Math.min(s.maxChunkBytes(), next);
        resetLevel(p);
    }

    /** A quarter of the proven size, within [minChunkBytes, linearStepBytes]. */
    private long linearStep(int p) {
        return Math.max(s.minChunkBytes(), Math.min(s.linearStepBytes(), safe[p] / 4));
    }

    private void lost(int p, long bytes) {
        losses[p]++;
        overflowed[p] = true;
        steadyRun[p] = 0;
        if (safe[p] == 0) {
            // nothing proven yet: halve and keep doubling from there
            size[p] = Math.max(s.minChunkBytes(), Math.min(size[p], bytes / 2));
            bestRate[p] = 0;
            resetLevel(p);
        } else if (bytes > safe[p]) {
            backOff(p);
        } else {
            shrink(p, bytes);
        }
    }

    /** The current size (above the proven one) failed: back to the proven size. */
    private void backOff(int p) {
        size[p] = safe[p];
        if (reprobing[p]) {
            reprobing[p] = false;
            reprobeBackoff[p] = Math.min(reprobeBackoff[p] * 2, MAX_REPROBE_BACKOFF);
            reprobeWait[p] = jittered(s.reprobeAfterChunks() * reprobeBackoff[p]);
            phase[p] = STEADY;
        } else {
            phase[p] = phase[p] == BINARY ? LINEAR : STEADY;
        }
        steadyRun[p] = 0;
        bestRate[p] = 0;
        resetLevel(p);
    }

    /** {@code chunks} plus a random 0..reprobeJitterPercent of it. */
    private long jittered(long chunks) {
        long spread = chunks * s.reprobeJitterPercent() / 100;
        return spread > 0 ? chunks + jitter.nextLong(spread + 1) : chunks;
    }

    private void resetLevel(int p) {
        levelCount[p] = 0;
        levelBytes[p] = 0;
        levelNanos[p] = 0;
        levelMax[p] = 0;
    }

    @Override
    public void onPathsChanged() {
        fit();
    }

    @Override
    public void close() {
        registry.remove(this);
    }

    /** @return the session's per-path statistics (any thread) */
    List<ChunkSizeStats> statistics() {
        AtomicLongArray a = published;
        int n = a.length() / FIELDS;
        List<ChunkSizeStats> out = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            int b = p * FIELDS;
            long count = a.getAcquire(b + F_DONE);
            out.add(new ChunkSizeStats(p, PHASES[(int) a.getAcquire(b + F_PHASE)], a.getAcquire(b + F_CURRENT),
                    a.getAcquire(b + F_SAFE), a.getAcquire(b + F_MAX),
                    count == 0 ? 0 : a.getAcquire(b + F_SUM) / count, count, a.getAcquire(b + F_LOSSES)));
        }
        return out;
    }

    /** @return the phase of a path (for tests) */
    int phase(int path) {
        return phase[path];
    }

    private void publish(int p) {
        AtomicLongArray a = published;
        int b = p * FIELDS;
        a.setRelease(b + F_CURRENT, size[p]);
        a.setRelease(b + F_SAFE, safe[p]);
        a.setRelease(b + F_MAX, maxDone[p]);
        a.setRelease(b + F_SUM, sumDone[p]);
        a.setRelease(b + F_DONE, done[p]);
        a.setRelease(b + F_LOSSES, losses[p]);
        a.setRelease(b + F_PHASE, phase[p]);
    }

    private void fit() {
        int n = paths.pathCount();
        int old = size.length;
        if (n <= old) {
            return;
        }
        size = Arrays.copyOf(size, n);
        Arrays.fill(size, old, n, s.initialChunkBytes());
        safe = Arrays.copyOf(safe, n);
        phase = Arrays.copyOf(phase, n);
        steadyRun = Arrays.copyOf(steadyRun, n);
        reprobeWait = Arrays.copyOf(reprobeWait, n);
        for (int p = old; p < n; p++) {
            reprobeWait[p] = jittered(s.reprobeAfterChunks());
        }
        reprobeBackoff = Arrays.copyOf(reprobeBackoff, n);
        Arrays.fill(reprobeBackoff, old, n, 1);
        reprobing = Arrays.copyOf(reprobing, n);
        levelCount = Arrays.copyOf(levelCount, n);
        levelBytes = Arrays.copyOf(levelBytes, n);
        levelNanos = Arrays.copyOf(levelNanos, n);
        levelMax = Arrays.copyOf(levelMax, n);
        bestRate = Arrays.copyOf(bestRate, n);
        provenRate = Arrays.copyOf(provenRate, n);
        slowLevels = Arrays.copyOf(slowLevels, n);
        maxDone = Arrays.copyOf(maxDone, n);
        sumDone = Arrays.copyOf(sumDone, n);
        done = Arrays.copyOf(done, n);
        losses = Arrays.copyOf(losses, n);
        overflowed = Arrays.copyOf(overflowed, n);
        busyUntil = Arrays.copyOf(busyUntil, n);
        Arrays.fill(busyUntil, old, n, Long.MIN_VALUE);
        published = new AtomicLongArray(n * FIELDS);
        for (int p = 0; p < n; p++) {
            publish(p);
        }
    }
}
