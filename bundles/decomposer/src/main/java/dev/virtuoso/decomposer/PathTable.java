package dev.virtuoso.decomposer;

import java.util.Arrays;

import dev.virtuoso.api.PathState;
import dev.virtuoso.spi.policy.PathStateView;

/**
 * The core's own view of a connection's paths: QP-level state plus counters fed by chunk posts and
 * completions (in-flight bytes and chunks, completed bytes, a moving-average rate, a smoothed
 * latency, consecutive errors). Written on the engine thread only; other threads may read it for
 * statistics and then see recent, not necessarily consistent, values.
 *
 * <p>Slots are numbered in the order paths are added. A removed path stays {@link PathState#DOWN}
 * until its slot is {@linkplain #release released}; {@link #add()} then reuses the lowest released
 * slot with fresh counters, so a connection may add and remove paths without end while at most
 * {@link #capacity()} exist at once. Completions of a slot's earlier incarnation cannot reach the
 * new one: a slot is released only with nothing in flight, after every chunk and probe of the old
 * QP was released, and those carry a generation in their wr_id that is bumped on release.
 */
public final class PathTable implements PathStateView {
    /** Rate samples are taken over windows at least this long. */
    static final long RATE_WINDOW_NANOS = 2_000_000L;
    private static final double RATE_GAIN = 0.25;
    /**
     * Most slots a table may have: the decomposition keeps per-message sets of paths in 64-bit masks.
     *
     * @since 1.1
     */
    public static final int MAX_CAPACITY = 64;

    private final int capacity;
    private volatile int count;
    private final PathState[] state;
    private final long[] inFlightBytes;
    private final int[] inFlightChunks;
    private final long[] completedBytes;
    private final long[] chunksCompleted;
    private final long[] chunksFailed;
    private final int[] consecutiveErrors;
    private final double[] rate;
    private final long[] smoothedLatency;
    private final double[] probedCapacity;
    private final long[] windowStart;
    private final long[] windowBytes;
    private final boolean[] released;
    private int releasedCount;
    private long now;

    /** @param capacity most paths the connection may have at once (released slots are reused) */
    public PathTable(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in [1, " + MAX_CAPACITY + "]: " + capacity);
        }
        this.capacity = capacity;
        state = new PathState[capacity];
        Arrays.fill(state, PathState.DOWN);
        inFlightBytes = new long[capacity];
        inFlightChunks = new int[capacity];
        completedBytes = new long[capacity];
        chunksCompleted = new long[capacity];
        chunksFailed = new long[capacity];
        consecutiveErrors = new int[capacity];
        rate = new double[capacity];
        smoothedLatency = new long[capacity];
        probedCapacity = new double[capacity];
        windowStart = new long[capacity];
        windowBytes = new long[capacity];
        released = new boolean[capacity];
        now = System.nanoTime();
    }

    /** @return the most paths this table can hold */
    public int capacity() {
        return capacity;
    }

    /**
     * Adds a path in state {@link PathState#UP}.
     *
     * @return its slot
     * @throws IllegalStateException if the capacity is exhausted
     */
    public int add() {
        if (releasedCount > 0) {
            for (int slot = 0; slot < count; slot++) {
                if (released[slot]) {
                    released[slot] = false;
                    releasedCount--;
                    reset(slot);
                    state[slot] = PathState.UP;
                    return slot;
                }
            }
        }
        int slot = count;
        if (slot >= capacity) {
            throw new IllegalStateException("path table full (" + capacity + " paths)");
        }
        state[slot] = PathState.UP;
        windowStart[slot] = -1;
        count = slot + 1;
        return slot;
    }

    /**
     * Frees the slot of a removed path for a later {@link #add()}; it reads as {@link PathState#DOWN}
     * with its last counters until then.
     *
     * @param path path slot with nothing in flight
     * @throws IllegalStateException if chunks are still in flight on it
     * @since 1.1
     */
    public void release(int path) {
        if (inFlightChunks[path] != 0) {
            throw new IllegalStateException("path " + path + " still has " + inFlightChunks[path] + " chunks in flight");
        }
        state[path] = PathState.DOWN;
        if (!released[path]) {
            released[path] = true;
            releasedCount++;
        }
    }

    /**
     * @return paths that occupy a slot (added and not released): at most {@link #capacity()}
     * @since 1.1
     */
    public int slotsInUse() {
        return count - releasedCount;
    }

    private void reset(int slot) {
        inFlightBytes[slot] = 0;
        completedBytes[slot] = 0;
        chunksCompleted[slot] = 0;
        chunksFailed[slot] = 0;
        consecutiveErrors[slot] = 0;
        rate[slot] = 0;
        smoothedLatency[slot] = 0;
        probedCapacity[slot] = 0;
        windowStart[slot] = -1;
        windowBytes[slot] = 0;
    }

    /**
     * @param path path slot
     * @return its QP-level state
     */
    public PathState state(int path) {
        return state[path];
    }

    /**
     * @param path path slot
     * @param s new state
     */
    public void state(int path, PathState s) {
        state[path] = s;
    }

    /** @return true if any path is {@link PathState#UP} */
    public boolean anyUp() {
        for (int p = 0; p < count; p++) {
            if (state[p] == PathState.UP) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return true if any path is {@link PathState#UP} and has not failed since its last success (a
     *     re-created QP is on probation until a chunk completes on it)
     */
    public boolean anyHealthy() {
        for (int p = 0; p < count; p++) {
            if (state[p] == PathState.UP && consecutiveErrors[p] == 0) {
                return true;
            }
        }
        return false;
    }

    /** @param nowNanos the engine's clock for this duty cycle */
    public void clock(long nowNanos) {
        now = nowNanos;
    }

    /**
     * A chunk was posted.
     *
     * @param path path slot
     * @param bytes chunk length
     */
    public void onPosted(int path, long bytes) {
        if (inFlightChunks[path] == 0 && windowStart[path] < 0) {
            windowStart[path] = now;
            windowBytes[path] = 0;
        }
        inFlightBytes[path] += bytes;
        inFlightChunks[path]++;
    }

    /**
     * A chunk ended (or was abandoned).
     *
     * @param path path slot
     * @param bytes chunk length
     * @param latencyNanos post-to-completion time; negative if abandoned (no sample)
     * @param success whether it completed successfully
     */
    public void onCompleted(int path, long bytes, long latencyNanos, boolean success) {
        inFlightBytes[path] -= bytes;
        inFlightChunks[path]--;
        if (success) {
            completedBytes[path] += bytes;
            chunksCompleted[path]++;
            consecutiveErrors[path] = 0;
            if (latencyNanos >= 0) {
                long s = smoothedLatency[path];
                smoothedLatency[path] = s == 0 ? latencyNanos : s + ((latencyNanos - s) >> 3);
            }
            windowBytes[path] += bytes;
        } else {
            chunksFailed[path]++;
            consecutiveErrors[path]++;
        }
        sampleRate(path);
    }

    private void sampleRate(int path) {
        long start = windowStart[path];
        if (start < 0) {
            return;
        }
        long elapsed = now - start;
        boolean idle = inFlightChunks[path] == 0;
        if (elapsed >= RATE_WINDOW_NANOS) {
            double sample = windowBytes[path] * 1e9 / elapsed;
            double r = rate[path];
            rate[path] = r == 0 ? sample : r + RATE_GAIN * (sample - r);
            windowStart[path] = idle ? -1 : now;
            windowBytes[path] = 0;
        } else if (idle) {
            // a burst shorter than a window: keep accumulating only while the path stays busy
            windowStart[path] = -1;
        }
    }

    /**
     * @param path path slot
     * @param bytesPerSecond capacity measured by probing
     */
    public void probedCapacity(int path, double bytesPerSecond) {
        probedCapacity[path] = bytesPerSecond;
    }

    @Override
    public int pathCount() {
        return count;
    }

    @Override
    public boolean usable(int path) {
        return path >= 0 && path < count && state[path] == PathState.UP;
    }

    @Override
    public long inFlightBytes(int path) {
        return inFlightBytes[path];
    }

    @Override
    public int inFlightChunks(int path) {
        return inFlightChunks[path];
    }

    @Override
    public double probedCapacity(int path) {
        return probedCapacity[path];
    }

    @Override
    public double estimatedRate(int path) {
        return rate[path];
    }

    @Override
    public long smoothedLatencyNanos(int path) {
        return smoothedLatency[path];
    }

    @Override
    public long completedBytes(int path) {
        return completedBytes[path];
    }

    @Override
    public int consecutiveErrors(int path) {
        return consecutiveErrors[path];
    }

    @Override
    public long nowNanos() {
        return now;
    }

    /**
     * @param path path slot
     * @return chunks completed successfully
     */
    public long chunksCompleted(int path) {
        return chunksCompleted[path];
    }

    /**
     * @param path path slot
     * @return chunks that failed
     */
    public long chunksFailed(int path) {
        return chunksFailed[path];
    }
}
