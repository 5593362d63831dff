package dev.virtuoso.policy.testkit;

import java.util.Arrays;

import dev.virtuoso.spi.policy.PathStateView;

/** A settable {@link PathStateView} for unit tests of the policy logic. */
public final class FakePaths implements PathStateView {
    public boolean[] usable = new boolean[0];
    public long[] inFlightBytes = new long[0];
    public int[] inFlightChunks = new int[0];
    public double[] probed = new double[0];
    public double[] estimated = new double[0];
    public long[] completed = new long[0];
    public int[] errors = new int[0];
    public long now;

    public FakePaths(int paths) {
        resize(paths);
    }

    public void resize(int paths) {
        int old = usable.length;
        usable = Arrays.copyOf(usable, paths);
        Arrays.fill(usable, old, paths, true);
        inFlightBytes = Arrays.copyOf(inFlightBytes, paths);
        inFlightChunks = Arrays.copyOf(inFlightChunks, paths);
        probed = Arrays.copyOf(probed, paths);
        estimated = Arrays.copyOf(estimated, paths);
        completed = Arrays.copyOf(completed, paths);
        errors = Arrays.copyOf(errors, paths);
    }

    public void post(int path, long bytes) {
        inFlightBytes[path] += bytes;
        inFlightChunks[path]++;
    }

    public void complete(int path, long bytes, boolean ok) {
        inFlightBytes[path] -= bytes;
        inFlightChunks[path]--;
        if (ok) {
            completed[path] += bytes;
            errors[path] = 0;
        } else {
            errors[path]++;
        }
    }

    @Override
    public int pathCount() {
        return usable.length;
    }

    @Override
    public boolean usable(int path) {
        return usable[path];
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
        return probed[path];
    }

    @Override
    public double estimatedRate(int path) {
        return estimated[path];
    }

    @Override
    public long smoothedLatencyNanos(int path) {
        return 0;
    }

    @Override
    public long completedBytes(int path) {
        return completed[path];
    }

    @Override
    public int consecutiveErrors(int path) {
        return errors[path];
    }

    @Override
    public long nowNanos() {
        return now;
    }
}
