package dev.virtuoso.policy.bench;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;

/**
 * A continuous MP_WRITE stream from the client into the server: {@code window} requests of
 * {@code wrBytes} outstanding, each copying one of several distinct pattern blocks into a free
 * destination slot; every completed request's destination is compared byte for byte with its
 * source, and a slot is written with another block than last time, so lost or stale bytes show.
 * A sampler thread records every path's completed bytes every {@code sampleMillis}. Requests still
 * outstanding 20 s after the end are reported as undrained.
 */
final class WriteStream implements AutoCloseable {
    /** Something to do at a time into the run. */
    record Action(long atMillis, String what, Runnable run) {
    }

    /** What a run measured. */
    record Result(List<long[]> samples, long requestsCompleted, long requestsFailed, long mismatches,
            long bytesVerified, String firstFailure, int undrained) {
        /** @return total goodput in bit/s over [fromMillis, toMillis) from the path samples */
        double goodputBits(long fromMillis, long toMillis) {
            long[] a = at(fromMillis);
            long[] b = at(toMillis);
            return (total(b) - total(a)) * 8e3 / (b[0] - a[0]);
        }

        /** @return path {@code p}'s goodput in bit/s over the interval */
        double pathBits(int p, long fromMillis, long toMillis) {
            long[] a = at(fromMillis);
            long[] b = at(toMillis);
            return (b[p + 1] - a[p + 1]) * 8e3 / (b[0] - a[0]);
        }

        /** The first sample at or after the time. */
        long[] at(long millis) {
            for (long[] s : samples) {
                if (s[0] >= millis) {
                    return s;
                }
            }
            return samples.get(samples.size() - 1);
        }

        static long total(long[] s) {
            long t = 0;
            for (int i = 1; i < s.length; i++) {
                t += s[i];
            }
            return t;
        }
    }

    private final MultipathConnection client;
    private final int wrBytes;
    private final int window;
    private final int slots;
    private final int blocks;
    private final ByteBuffer src;
    private final ByteBuffer dst;
    private final MemoryRegion srcMr;
    private final MemoryRegion dstMr;
    private final int[] blockOf;
    private final long[] slotOfWr;

    WriteStream(MultipathConnection client, MultipathConnection server, int wrBytes, int window) throws Exception {
        this.client = client;
        this.wrBytes = wrBytes;
        this.window = window;
        this.slots = window * 2;
        this.blocks = slots + 1;
        src = ByteBuffer.allocateDirect(blocks * wrBytes);
        dst = ByteBuffer.allocateDirect(slots * wrBytes);
        for (int b = 0; b < blocks; b++) {
            fill(src, b * wrBytes, wrBytes, 0x9E3779B97F4A7C15L * (b + 1));
        }
        srcMr = client.register(src, EnumSet.of(Access.LOCAL_WRITE));
        dstMr = server.register(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        blockOf = new int[slots];
        for (int s = 0; s < slots; s++) {
            blockOf[s] = s;
        }
        slotOfWr = new long[slots];
    }

    /**
     * Streams for {@code durationMillis}, runs the actions at their times, then drains.
     *
     * @return the measurements
     */
    Result run(long durationMillis, long sampleMillis, List<Action> actions) throws Exception {
        List<long[]> samples = new ArrayList<>();
        long t0 = System.nanoTime();
        Thread sampler = new Thread(() -> sample(samples, t0, sampleMillis), "virtuoso-bench-sampler");
        sampler.setDaemon(true);
        sampler.start();
        ArrayDeque<Integer> free = new ArrayDeque<>();
        for (int s = 0; s < slots; s++) {
            free.add(s);
        }
        List<Action> pending = new ArrayList<>(actions);
        long nextWrId = 1;
        int outstanding = 0;
        long completed = 0;
        long failed = 0;
        long mismatches = 0;
        long verified = 0;
        String firstFailure = null;
        MpCompletion c = new MpCompletion();
        long end = t0 + durationMillis * 1_000_000L;
        long drainDeadline = Long.MAX_VALUE;
        while (true) {
            long now = System.nanoTime();
            for (int i = 0; i < pending.size(); i++) {
                Action a = pending.get(i);
                if (now - t0 >= a.atMillis() * 1_000_000L) {
                    System.out.printf("  t=%d ms: %s%n", (now - t0) / 1_000_000, a.what());
                    a.run().run();
                    pending.remove(i--);
                }
            }
            while (now < end && outstanding < window && !free.isEmpty()) {
                int slot = free.poll();
                int block = (blockOf[slot] + 1) % blocks;
                blockOf[slot] = block;
                long id = nextWrId++;
                slotOfWr[slot] = id;
                client.postWrite(id, srcMr, (long) block * wrBytes, wrBytes, dstMr.remote(), (long) slot * wrBytes);
                outstanding++;
            }
            if (outstanding == 0 && now >= end) {
                break;
            }
            if (now >= end && drainDeadline == Long.MAX_VALUE) {
                drainDeadline = now + 20_000_000_000L;
            }
            if (now > drainDeadline) {
                break; // reported as undrained: the connection keeps them
            }
            if (!client.awaitCompletion(c, 10, TimeUnit.MILLISECONDS)) {
                continue;
            }
            outstanding--;
            int slot = slotOf(c.wrId());
            if (c.ok()) {
                completed++;
                int block = blockOf[slot];
                if (dst.slice(slot * wrBytes, wrBytes).mismatch(src.slice(block * wrBytes, wrBytes)) != -1) {
                    mismatches++;
                } else {
                    verified += wrBytes;
                }
            } else {
                failed++;
                if (firstFailure == null) {
                    firstFailure = c.toString();
                }
            }
            free.add(slot);
        }
        Thread.sleep(sampleMillis * 2);
        sampler.interrupt();
        sampler.join(5_000);
        synchronized (samples) {
            return new Result(new ArrayList<>(samples), completed, failed, mismatches, verified, firstFailure,
                    outstanding);
        }
    }

    private int slotOf(long wrId) {
        for (int s = 0; s < slots; s++) {
            if (slotOfWr[s] == wrId) {
                return s;
            }
        }
        throw new IllegalStateException("completion for unknown wr_id " + wrId);
    }

    private void sample(List<long[]> samples, long t0, long sampleMillis) {
        long next = t0;
        while (!Thread.currentThread().isInterrupted()) {
            List<PathStats> stats = client.pathStats();
            long[] s = new long[stats.size() + 1];
            s[0] = (System.nanoTime() - t0) / 1_000_000;
            for (int p = 0; p < stats.size(); p++) {
                s[p + 1] = stats.get(p).bytesCompleted();
            }
            synchronized (samples) {
                samples.add(s);
            }
            next += sampleMillis * 1_000_000L;
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private static void fill(ByteBuffer b, int off, int len, long seed) {
        long x = seed | 1;
        for (int i = 0; i < len; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.putLong(off + i, x);
        }
    }

    @Override
    public void close() {
        srcMr.close();
        dstMr.close();
    }
}
