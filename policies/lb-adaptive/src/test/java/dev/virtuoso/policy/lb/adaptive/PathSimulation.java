package dev.virtuoso.policy.lb.adaptive;

import java.util.ArrayDeque;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;

/**
 * A time-stepped model of the core driving a load-balancer session: paths serve their chunks FIFO
 * at a (changeable) rate, the engine notices completions at each step (like a polling loop),
 * reports them, then places chunks until the session says wait or keeps choosing paths at their
 * window. Messages are decomposed one after the other.
 */
final class PathSimulation {
    static final double MBIT = 1e6 / 8;

    final FakePaths view;
    final double[] rate;
    final long[] delivered;
    private final LoadBalancerSession lb;
    private final long chunkCap;
    private final int window;
    private final long stepNanos;
    private final ArrayDeque<long[]>[] queues; // {bytes, remaining, postedAt}
    private final double[] carry;
    private final ChunkPlacement out = new ChunkPlacement();
    private final long messageBytes;
    private final int messages;
    private int messagesStarted;
    private long messageId;
    private long remaining;
    long lastMessageDoneNanos = -1;
    private long deliveredTotal;

    @SuppressWarnings("unchecked")
    PathSimulation(FakePaths view, LoadBalancerSession lb, double[] rate, long chunkCap, int window, long stepNanos,
            long messageBytes, int messages) {
        this.view = view;
        this.lb = lb;
        this.rate = rate;
        this.chunkCap = chunkCap;
        this.window = window;
        this.stepNanos = stepNanos;
        this.messageBytes = messageBytes;
        this.messages = messages;
        int n = rate.length;
        this.delivered = new long[n];
        this.carry = new double[n];
        this.queues = new ArrayDeque[n];
        for (int p = 0; p < n; p++) {
            queues[p] = new ArrayDeque<>();
        }
    }

    long now() {
        return view.now;
    }

    long deliveredTotal() {
        return deliveredTotal;
    }

    /** Runs until the given simulated time. */
    void runUntil(long nanos) {
        pump();
        while (view.now < nanos) {
            step();
        }
    }

    private void step() {
        view.now += stepNanos;
        for (int p = 0; p < rate.length; p++) {
            ArrayDeque<long[]> q = queues[p];
            if (q.isEmpty()) {
                carry[p] = 0;
                continue;
            }
            double budget = carry[p] + rate[p] * stepNanos / 1e9;
            while (!q.isEmpty() && budget >= q.peekFirst()[1]) {
                long[] c = q.pollFirst();
                budget -= c[1];
                view.complete(p, c[0], true);
                delivered[p] += c[0];
                deliveredTotal += c[0];
                lb.onChunkComplete(p, c[0], view.now - c[2], ChunkOutcome.SUCCESS);
            }
            if (!q.isEmpty()) {
                long take = (long) budget;
                q.peekFirst()[1] -= take;
                carry[p] = budget - take;
            } else {
                carry[p] = 0;
            }
        }
        if (remaining == 0 && messagesStarted == messages && lastMessageDoneNanos < 0 && allIdle()) {
            lastMessageDoneNanos = view.now;
        }
        pump();
    }

    private boolean allIdle() {
        for (ArrayDeque<long[]> q : queues) {
            if (!q.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private void pump() {
        while (true) {
            if (remaining == 0) {
                if (messagesStarted == messages) {
                    return;
                }
                messagesStarted++;
                messageId++;
                remaining = messageBytes;
                lb.onMessageStart(messageId, messageBytes);
            }
            // like the core: a path at its window is skipped and the session asked again, at most
            // once per path, then placement waits for a completion
            int p = -1;
            for (int attempt = 0; attempt < rate.length && p < 0; attempt++) {
                if (!lb.place(messageId, remaining, out)) {
                    return;
                }
                if (!view.usable[out.path()]) {
                    throw new AssertionError("placed on unusable path " + out.path());
                }
                if (view.inFlightChunks[out.path()] < window) {
                    p = out.path();
                }
            }
            if (p < 0) {
                return;
            }
            long chunk = Math.min(Math.min(out.maxBytes(), chunkCap), remaining);
            queues[p].addLast(new long[] {chunk, chunk, view.now});
            view.post(p, chunk);
            remaining -= chunk;
        }
    }
}
