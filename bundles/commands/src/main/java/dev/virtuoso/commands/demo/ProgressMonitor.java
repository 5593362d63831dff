package dev.virtuoso.commands.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

import dev.virtuoso.api.PathStats;
import dev.virtuoso.commands.cli.Units;

/**
 * Samples the running phase every {@value #INTERVAL_MILLIS} ms on its own thread: per-path
 * throughput from the connection's {@link PathStats} (see {@link PathRates}: over at least a second,
 * never more than the link carried), goodput from the verified bytes, and the load-balancing policies
 * seen; keeps the samples for the chart and draws a live progress line (redrawn in place on a
 * terminal, one line a second otherwise; the phase's last line shows its per-path averages). Owned
 * by the demo, which closes it.
 */
public final class ProgressMonitor implements AutoCloseable {

    /** Sampling interval. */
    public static final long INTERVAL_MILLIS = 200;

    private final PrintStream out;
    private final boolean terminal;
    private final int columns;
    private final ToIntFunction<PathStats> columnOf;
    private final long t0 = System.nanoTime();
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    /** Last counters of every path the phase's connection had, by path id: {column, bytes, chunks}. */
    private final Map<Integer, long[]> pathCounters = new HashMap<>();
    private final PathRates rates = new PathRates();
    /** Goodput, counted like a path whose chunks are the verified work requests. */
    private final PathRates goodput = new PathRates();
    private PhaseProgress phase;
    private long lastNanos;
    private long lastPrinted;
    private volatile boolean running = true;

    /**
     * Starts sampling.
     *
     * @param out where the progress line goes
     * @param terminal whether {@code out} is a terminal (redraw in place)
     * @param columns number of physical paths shown
     * @param columnOf the physical path (0..columns-1) a connection's path runs over, or -1
     */
    public ProgressMonitor(PrintStream out, boolean terminal, int columns, ToIntFunction<PathStats> columnOf) {
        this.out = out;
        this.terminal = terminal;
        this.columns = columns;
        this.columnOf = columnOf;
        this.thread = new Thread(this::loop, "virtuoso-demo-progress");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** @param p the phase that starts now */
    public synchronized void begin(PhaseProgress p) {
        phase = p;
        lastNanos = System.nanoTime();
        pathCounters.clear();
        long[][] c = columnCounters();
        rates.begin(lastNanos, c[0], c[1]);
        goodput.begin(lastNanos, new long[] {p.verifiedBytes()}, new long[] {p.verifiedRequests()});
        p.notePolicy();
    }

    /**
     * Per physical path, bytes and chunks completed so far, summed over the connection's paths on it
     * (a path removed from the connection keeps counting with its last values), and the largest
     * smoothed completion latency of those paths.
     */
    private long[][] columnCounters() {
        for (PathStats s : phase.connection().pathStats()) {
            pathCounters.put(s.pathId(), new long[] {columnOf.applyAsInt(s), s.bytesCompleted(), s.chunksCompleted(),
                s.smoothedLatencyNanos()});
        }
        long[] bytes = new long[columns];
        long[] chunks = new long[columns];
        long[] latency = new long[columns];
        for (long[] v : pathCounters.values()) {
            int column = (int) v[0];
            if (column >= 0 && column < columns) {
                bytes[column] += v[1];
                chunks[column] += v[2];
                latency[column] = Math.max(latency[column], v[3]);
            }
        }
        return new long[][] {bytes, chunks, latency};
    }

    /** @return bytes per physical path moved by the current phase so far (all zero if none runs) */
    public synchronized long[] phasePathBytes() {
        return phase == null ? new long[columns] : rates.since(columnCounters()[0]);
    }

    /** Takes a last sample of the current phase and ends its progress line. */
    public synchronized void end() {
        if (phase != null) {
            sample(true);
            if (terminal) {
                out.println();
            }
            phase = null;
        }
    }

    /** @return seconds since the monitor started */
    public double seconds() {
        return (System.nanoTime() - t0) / 1e9;
    }

    /** @return the samples so far */
    public synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    private void loop() {
        while (running) {
            try {
                TimeUnit.MILLISECONDS.sleep(INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                if (phase != null) {
                    sample(false);
                }
            }
        }
    }

    private void sample(boolean last) {
        long now = System.nanoTime();
        double dt = (now - lastNanos) / 1e9;
        if (dt <= 0) {
            return;
        }
        long verified = phase.verifiedBytes();
        long[] v = {verified};
        double total = goodput.sample(now, v, new long[] {phase.verifiedRequests()})[0];
        long[][] c = columnCounters();
        double[] perPath = rates.sample(now, c[0], c[1], c[2]);
        phase.notePolicy();
        lastNanos = now;
        if (!last || dt * 1000 >= INTERVAL_MILLIS / 2.0) {
            // a sliver of an interval at the end adds no sample; the final line shows the phase's averages
            samples.add(new Sample(seconds(), phase.name(), perPath, total, rates.since(c[0])));
        }
        if (last) {
            perPath = rates.average(now, c[0]);
            total = goodput.average(now, v)[0];
        }
        if (terminal) {
            out.print("\r" + line(verified, total, perPath) + "\033[K");
            out.flush();
        } else if (last || now - lastPrinted >= TimeUnit.SECONDS.toNanos(1)) {
            out.println(line(verified, total, perPath));
            lastPrinted = now;
        }
    }

    private String line(long verified, double total, double[] perPath) {
        int width = 24;
        double frac = phase.totalBytes() == 0 ? 1 : Math.min(1, verified / (double) phase.totalBytes());
        int filled = (int) Math.round(frac * width);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "  %-18s [%s%s] %3.0f%% %9s %12s |", phase.name(), "#".repeat(filled),
                ".".repeat(width - filled), frac * 100, Units.bytes(verified), Units.rate(total)));
        for (int i = 0; i < perPath.length; i++) {
            sb.append(String.format(Locale.ROOT, " p%d %4.0f", i, perPath[i] / 1e6));
        }
        sb.append(perPath.length > 0 ? " Mbit/s" : "").append(" | ").append(phase.policy());
        return sb.toString();
    }

    /** Stops the sampling thread. Idempotent. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
