package dev.virtuoso.policy.lb.proportional;

import java.util.Arrays;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;

/**
 * One connection's {@value ProportionalPolicy#NAME} state: the bytes of the current message still
 * allocated to each path, and the round-robin cursor.
 *
 * <p>Capacity of a path, the weight of equation 1: its probed capacity until the path has carried
 * {@value #MEASURED_AFTER_CHUNKS} data chunks of this session, its estimated delivery rate from then
 * on (measured over the path's busy time, so a path given too small a share still reads its
 * capacity); a path's first two data chunks must be larger than one packet, since the
 * reassembly's control messages on it measure no rate. The connect-time probe is a short flow that a shaper's token bucket or a loaded host
 * can misread; the transfer's own chunks are a long probe that corrects it within a few of the
 * estimator's time constants and follows later rate changes the same way (each message is split
 * afresh, net of the bytes still in flight, and the rest of a message again when a path has used
 * up its share and drained while others still hold theirs).
 *
 * <p>What a chunk actually carried is learnt from the drop in {@code remainingBytes} between two
 * {@link #place} calls of the same message (the core bounds chunks by congestion avoidance too),
 * so a {@code place} call that led to no post costs nothing. When the allocated paths fail, or
 * another message interleaves, what remains is split again over the usable paths.
 */
final class ProportionalSession implements LoadBalancerSession {
    /** Data chunks completed on a path before its estimated rate replaces its probed capacity. */
    static final int MEASURED_AFTER_CHUNKS = 2;

    private final PathStateView paths;
    private final double minRelative;
    private final long minShare;
    private int[] dataChunks = new int[0];
    private long[] left = new long[0];
    /** Weight of each path in the last split (0: not part of it). */
    private double[] weight = new double[0];
    /** Paths left out of the last split because their in-flight bytes outlast it. */
    private boolean[] backlogged = new boolean[0];
    private long message = Long.MIN_VALUE;
    private long lastRemaining;
    private int lastPath = -1;
    private int next;

    ProportionalSession(PathStateView paths, double minRelative, long minShare) {
        this.paths = paths;
        this.minRelative = minRelative;
        this.minShare = minShare;
        fit();
    }

    @Override
    public void onMessageStart(long messageId, long totalBytes) {
        allocate(messageId, totalBytes);
    }

    @Override
    public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
        if (messageId != message) {
            allocate(messageId, remainingBytes);
        } else if (lastPath >= 0) {
            long carried = lastRemaining - remainingBytes;
            if (carried > 0) {
                left[lastPath] = Math.max(0, left[lastPath] - carried);
            }
        }
        lastRemaining = remainingBytes;
        lastPath = -1;
        if (remainingBytes <= 0) {
            return false;
        }
        if (idleWithoutShare()) {
            // a path ran out of its share and drained while others still hold theirs: the split
            // read it low (or another path's rate fell), so the rest is split again, net of what
            // is in flight; without this a long message keeps its first split to the end
            allocate(messageId, remainingBytes);
        }
        if (choose(out)) {
            return true;
        }
        // allocation stranded on failed paths (or used up by failures): split the rest again
        allocate(messageId, remainingBytes);
        return choose(out);
    }

    private boolean idleWithoutShare() {
        int n = Math.min(paths.pathCount(), left.length);
        for (int p = 0; p < n; p++) {
            if (weight[p] > 0 && left[p] == 0 && paths.inFlightBytes(p) == 0 && paths.usable(p)) {
                return true;
            }
        }
        return false;
    }

    private boolean choose(ChunkPlacement out) {
        int n = Math.min(paths.pathCount(), left.length);
        for (int i = 0; i < n; i++) {
            int p = (next + i) % n;
            if (left[p] > 0 && paths.usable(p)) {
                next = (p + 1) % n;
                lastPath = p;
                out.set(p, left[p]);
                return true;
            }
        }
        return false;
    }

    /** Equation 1 over the usable paths (data_p = total * cap_p / sum(cap)), net of their in-flight bytes. */
    void allocate(long messageId, long totalBytes) {
        fit();
        message = messageId;
        lastRemaining = totalBytes;
        lastPath = -1;
        int n = left.length;
        double known = 0;
        int knownCount = 0;
        int usable = 0;
        for (int p = 0; p < n; p++) {
            weight[p] = 0;
            left[p] = 0;
            if (!paths.usable(p)) {
                continue;
            }
            usable++;
            double cap = capacity(p);
            weight[p] = cap > 0 ? cap : -1;
            if (cap > 0) {
                known += cap;
                knownCount++;
            }
        }
        if (usable == 0 || totalBytes <= 0) {
            return;
        }
        // unknown capacity: assume the mean of the known ones (equal split if none is known)
        double unknownWeight = knownCount == 0 ? 1 : known / knownCount;
        double max = 0;
        for (int p = 0; p < n; p++) {
            if (weight[p] < 0) {
                weight[p] = unknownWeight;
            }
            max = Math.max(max, weight[p]);
        }
        for (int p = 0; p < n; p++) {
            if (weight[p] < max * minRelative) {
                weight[p] = 0;
            }
        }
        double level = finishLevel(totalBytes, n);
        while (leaveOutSmallestBelowMinShare(level, n)) {
            level = finishLevel(totalBytes, n);
        }
        long given = 0;
        int largest = -1;
        double largestShare = 0;
        for (int p = 0; p < n; p++) {
            if (weight[p] > 0 && !backlogged[p]) {
                double share = Math.max(0, weight[p] * level - paths.inFlightBytes(p));
                left[p] = (long) Math.floor(share);
                given += left[p];
                if (largest < 0 || share > largestShare) {
                    largest = p;
                    largestShare = share;
                }
            }
        }
        left[largest] += totalBytes - given; // the rounding
    }

    /**
     * If a path of the split would get less than {@code minShare} bytes (and more than one path takes
     * part), leaves the one with the smallest share out of this message.
     *
     * @return whether a path was left out (the level must be found again)
     */
    private boolean leaveOutSmallestBelowMinShare(double level, int n) {
        int taking = 0;
        int smallest = -1;
        double smallestShare = 0;
        for (int p = 0; p < n; p++) {
            if (weight[p] > 0 && !backlogged[p]) {
                taking++;
                double share = weight[p] * level - paths.inFlightBytes(p);
                if (smallest < 0 || share < smallestShare) {
                    smallest = p;
                    smallestShare = share;
                }
            }
        }
        if (taking <= 1 || smallestShare >= minShare) {
            return false;
        }
        weight[smallest] = 0;
        return true;
    }

    /**
     * Equation 1 with the bytes still in flight on each path (earlier messages' chunks): the time
     * T at which the weighted paths would all finish, sum over paths of max(0, cap_p * T -
     * inFlight_p) = total. With nothing in flight it is the paper's split, total * cap_p / sum(cap);
     * with a backlog, a path whose weight reads high (a shaper's burst, a rate that fell) has more
     * left in flight at the next message and gets less of it, so the split corrects itself.
     * Paths whose backlog alone reaches T take no part in this split ({@code backlogged}).
     */
    private double finishLevel(long totalBytes, int n) {
        Arrays.fill(backlogged, false);
        while (true) {
            double sumWeight = 0;
            double sumInFlight = 0;
            for (int p = 0; p < n; p++) {
                if (weight[p] > 0 && !backlogged[p]) {
                    sumWeight += weight[p];
                    sumInFlight += paths.inFlightBytes(p);
                }
            }
            double level = (totalBytes + sumInFlight) / sumWeight;
            boolean dropped = false;
            for (int p = 0; p < n; p++) {
                if (weight[p] > 0 && !backlogged[p] && paths.inFlightBytes(p) >= weight[p] * level) {
                    backlogged[p] = true;
                    dropped = true;
                }
            }
            if (!dropped) {
                return level;
            }
        }
    }

    /** The weight of path p: measured on data once it carried some, else probed, else estimated. */
    private double capacity(int p) {
        double estimated = paths.estimatedRate(p);
        if (dataChunks[p] >= MEASURED_AFTER_CHUNKS && estimated > 0) {
            return estimated;
        }
        double probed = paths.probedCapacity(p);
        return probed > 0 ? probed : estimated;
    }

    /** @return bytes of the current message still allocated to the path (for tests) */
    long allocated(int path) {
        return path < left.length ? left[path] : 0;
    }

    private void fit() {
        int n = paths.pathCount();
        if (left.length != n) {
            left = Arrays.copyOf(left, n);
            weight = Arrays.copyOf(weight, n);
            backlogged = Arrays.copyOf(backlogged, n);
            dataChunks = Arrays.copyOf(dataChunks, n);
            if (next >= n) {
                next = 0;
            }
        }
    }

    @Override
    public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        // the next message's split reads this path's measured rate once it has carried data
        if (outcome == ChunkOutcome.SUCCESS && bytes > PathStateView.MAX_LATENCY_ONLY_BYTES && path >= 0 && path < dataChunks.length
                && dataChunks[path] < MEASURED_AFTER_CHUNKS) {
            dataChunks[path]++;
        }
    }

    @Override
    public void onPathsChanged() {
        fit();
        // a path slot that failed or was replaced is measured afresh
        for (int p = 0; p < dataChunks.length; p++) {
            if (!paths.usable(p)) {
                dataChunks[p] = 0;
            }
        }
    }

    @Override
    public void close() {
        // nothing held
    }
}
