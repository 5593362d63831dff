package dev.virtuoso.policy.lb.adaptive;

import java.util.Arrays;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;

/**
 * One connection's {@value AdaptivePolicy#NAME} state. Rules of {@link #place}, in order:
 * <ol>
 * <li>A usable path whose rate is unknown and that has nothing in flight gets a
 * {@code minChunkBytes} chunk at once (exploration of new or recovered paths).</li>
 * <li>Every {@code exploreEvery}-th decision, a usable path idle for {@code exploreIdleMillis}
 * gets a chunk, so its estimate cannot go stale.</li>
 * <li>Otherwise the chunk goes to the path with the earliest expected finish
 * {@code (inFlight + chunk) / rate} among the paths that are not full (fewer than
 * {@code minInFlightChunks} chunks in flight, or in-flight bytes draining in less than
 * {@code queueTargetMillis}). With every path full the answer is "wait": completions clock the
 * placement.</li>
 * <li>Tail: a slower path is not given a chunk it would finish after the message's fluid
 * completion time (the water level at which every path drains its in-flight bytes plus its part
 * of the rest); the faster paths take it when they have room.</li>
 * </ol>
 * Chunks are sized to take {@code chunkTimeMillis} on their path. Rates are measured from
 * completions as the busy-time delivery rate (spacing between completions while busy, latency
 * when posted onto an idle path), aggregated over at least 1 ms and smoothed with time constant
 * {@code rateTimeConstantMillis}; probed capacity or the view's estimate seed a path before its
 * first completion. A path that comes back after being unusable is measured afresh. When the core
 * asks again without having posted the last choice (that path is at its congestion-avoidance
 * window), the next answer avoids it.
 */
final class AdaptiveSession implements LoadBalancerSession {
    private static final long MIN_SAMPLE_NANOS = 1_000_000L;
    private static final int TAIL_MAX_PATHS = 64;

    private final PathStateView paths;
    private final AdaptiveSettings s;
    private final double chunkTimeSec;
    private final double queueTargetSec;
    private double[] rate = new double[0];
    private boolean[] anyDone = new boolean[0];
    private long[] lastDone = new long[0];
    private long[] sampleBytes = new long[0];
    private long[] sampleNanos = new long[0];
    private long[] lastActive = new long[0];
    private boolean[] wasUsable = new boolean[0];
    private long decisions;
    /** The last path chosen, its in-flight chunk count then, and paths refused since. */
    private int lastChoice = -1;
    private int lastChoiceInFlight;
    private boolean completedSinceChoice;
    private long refused;

    AdaptiveSession(PathStateView paths, AdaptiveSettings settings) {
        this.paths = paths;
        this.s = settings;
        this.chunkTimeSec = settings.chunkTimeNanos() / 1e9;
        this.queueTargetSec = settings.queueTargetNanos() / 1e9;
        fit();
    }

    @Override
    public void onMessageStart(long messageId, long totalBytes) {
        // placement is per chunk; the message matters only through remainingBytes
    }

    @Override
    public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
        fit();
        if (remainingBytes <= 0) {
            return false;
        }
        long now = paths.nowNanos();
        int n = rate.length;
        decisions++;
        // asked again with nothing posted or completed: the core found the last choice at its
        // congestion-avoidance window; choose among the others this time
        if (lastChoice >= 0 && !completedSinceChoice && paths.inFlightChunks(lastChoice) == lastChoiceInFlight) {
            refused |= lastChoice < 64 ? 1L << lastChoice : 0;
        } else {
            refused = 0;
        }
        lastChoice = -1;
        for (int p = 0; p < n; p++) {
            boolean u = paths.usable(p);
            if (u && !wasUsable[p]) {
                forget(p);
            }
            wasUsable[p] = u;
        }
        for (int p = 0; p < n; p++) {
            if (wasUsable[p] && rateOf(p) <= 0 && paths.inFlightChunks(p) == 0 && !refused(p)) {
                return put(p, s.minChunkBytes(), now, out);
            }
        }
        if (s.exploreEvery() > 0 && decisions % s.exploreEvery() == 0) {
            for (int p = 0; p < n; p++) {
                if (wasUsable[p] && paths.inFlightChunks(p) == 0 && now - lastActive[p] >= s.exploreIdleNanos()
                        && !refused(p)) {
                    return put(p, chunkFor(rateOf(p)), now, out);
                }
            }
        }
        int bestFree = -1;
        double bestFreeScore = Double.MAX_VALUE;
        int bestAll = -1;
        double bestAllScore = Double.MAX_VALUE;
        for (int p = 0; p < n; p++) {
            double r = rateOf(p);
            if (!wasUsable[p] || r <= 0) {
                continue; // unknown paths with a chunk in flight wait for its completion
            }
            long inFlight = paths.inFlightBytes(p);
            double score = (inFlight + Math.min(remainingBytes, chunkFor(r))) / r;
            if (score < bestAllScore) {
                bestAllScore = score;
                bestAll = p;
            }
            boolean full = refused(p)
                    || paths.inFlightChunks(p) >= s.minInFlightChunks() && inFlight >= r * queueTargetSec;
            if (!full && score < bestFreeScore) {
                bestFreeScore = score;
                bestFree = p;
            }
        }
        if (bestFree < 0) {
            return false;
        }
        if (s.tailAware() && bestFree != bestAll && n <= TAIL_MAX_PATHS
                && bestFreeScore > waterLevel(remainingBytes, n)) {
            return false;
        }
        return put(bestFree, chunkFor(rateOf(bestFree)), now, out);
    }

    /**
     * The time T (seconds from now) at which the usable paths would finish their in-flight bytes
     * plus {@code remaining} shared ideally: sum over paths of max(0, rate * T - inFlight) equals
     * remaining. Paths already busy beyond T take no part.
     */
    private double waterLevel(long remaining, int n) {
        long active = 0;
        for (int p = 0; p < n; p++) {
            if (wasUsable[p] && rateOf(p) > 0) {
                active |= 1L << p;
            }
        }
        while (true) {
            double sumRate = 0;
            double sumInFlight = 0;
            for (int p = 0; p < n; p++) {
                if ((active & (1L << p)) != 0) {
                    sumRate += rateOf(p);
                    sumInFlight += paths.inFlightBytes(p);
                }
            }
            if (sumRate <= 0) {
                return Double.MAX_VALUE;
            }
            double level = (remaining + sumInFlight) / sumRate;
            long beyond = 0;
            for (int p = 0; p < n; p++) {
                if ((active & (1L << p)) != 0 && paths.inFlightBytes(p) / rateOf(p) >= level) {
                    beyond |= 1L << p;
                }
            }
            if (beyond == 0) {
                return level;
            }
            active &= ~beyond;
        }
    }

    private boolean refused(int p) {
        return p < 64 && (refused & (1L << p)) != 0;
    }

    private boolean put(int path, long maxBytes, long now, ChunkPlacement out) {
        lastChoice = path;
        lastChoiceInFlight = paths.inFlightChunks(path);
        completedSinceChoice = false;
        lastActive[path] = now;
        out.set(path, maxBytes);
        return true;
    }

    private long chunkFor(double r) {
        return Math.max(s.minChunkBytes(), (long) (r * chunkTimeSec));
    }

    /** Own measurement first, then the probe, then the view's estimate; 0 if nothing is known. */
    private double rateOf(int p) {
        if (rate[p] > 0) {
            return rate[p];
        }
        double probed = paths.probedCapacity(p);
        return probed > 0 ? probed : paths.estimatedRate(p);
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        fit();
        if (path < 0 || path >= rate.length) {
            return;
        }
        long now = paths.nowNanos();
        lastActive[path] = now;
        completedSinceChoice = true;
        if (outcome != ChunkOutcome.SUCCESS) {
            if (anyDone[path]) {
                lastDone[path] = now;
            }
            return;
        }
        long postedAt = now - Math.max(0, latencyNanos);
        long busyFrom = anyDone[path] ? Math.max(lastDone[path], postedAt) : postedAt;
        anyDone[path] = true;
        lastDone[path] = now;
        sampleBytes[path] += bytes;
        sampleNanos[path] += Math.max(0, now - busyFrom);
        if (sampleNanos[path] >= MIN_SAMPLE_NANOS) {
            double sample = sampleBytes[path] * 1e9 / sampleNanos[path];
            if (rate[path] <= 0) {
                rate[path] = sample;
            } else {
                double w = 1 - Math.exp(-(double) sampleNanos[path] / s.rateTimeConstantNanos());
                rate[path] += w * (sample - rate[path]);
            }
            sampleBytes[path] = 0;
            sampleNanos[path] = 0;
        }
    }

    @Override
    public void onPathsChanged() {
        fit();
    }

    @Override
    public void close() {
        // nothing held
    }

    /** @return the session's own rate measurement of a path in bytes per second (for tests) */
    double measuredRate(int path) {
        return path < rate.length ? rate[path] : 0;
    }

    private void forget(int p) {
        rate[p] = 0;
        anyDone[p] = false;
        sampleBytes[p] = 0;
        sampleNanos[p] = 0;
    }

    private void fit() {
        int n = paths.pathCount();
        if (rate.length != n) {
            rate = Arrays.copyOf(rate, n);
            anyDone = Arrays.copyOf(anyDone, n);
            lastDone = Arrays.copyOf(lastDone, n);
            sampleBytes = Arrays.copyOf(sampleBytes, n);
            sampleNanos = Arrays.copyOf(sampleNanos, n);
            lastActive = Arrays.copyOf(lastActive, n);
            wasUsable = Arrays.copyOf(wasUsable, n);
        }
    }
}
