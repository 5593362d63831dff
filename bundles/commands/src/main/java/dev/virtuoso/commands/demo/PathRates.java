package dev.virtuoso.commands.demo;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Per-path rates of a phase from the paths' completed bytes and chunks, sampled now and then.
 *
 * <p>A chunk's bytes count when the chunk completes, all at once, although the link carried them
 * over the chunk's whole transmission, and completions may be held back (acknowledgements queued
 * behind reverse traffic): bytes completed in a short interval divided by that interval overstate
 * the rate (a 200 ms sample showed 252 Mbit/s on a 150 Mbit/s link). So a rate here counts only bytes
 * the link must have carried inside its window: from the phase's start, every completed byte
 * (nothing was in flight before it); from a later snapshot, the bytes of the chunks completed since
 * minus two average chunks (the one possibly in flight at the snapshot, and one for a completion held
 * back), over the window lengthened by the path's completion latency (a chunk completed in the window
 * may have been on the wire that long before it began). The window reaches back at least
 * {@value #WINDOW_MILLIS} ms and {@value #MIN_CHUNKS} chunks, so the deduction costs at most a tenth;
 * with fewer chunks the phase's average is shown. A link serves chunks one after the other, so the
 * rate never exceeds the link's (PathRatesTest).
 */
final class PathRates {
    /** Shortest window a rate covers. */
    static final long WINDOW_MILLIS = 1000;
    /** Fewest chunks completed in a window. */
    static final int MIN_CHUNKS = 20;
    /** Snapshots older than this are dropped. */
    private static final long HISTORY_NANOS = 30_000_000_000L;

    private record Snapshot(long nanos, long[] bytes, long[] chunks) {
    }

    private final ArrayDeque<Snapshot> history = new ArrayDeque<>();
    private Snapshot start;

    /**
     * @param nanos when the phase started
     * @param bytes bytes completed so far, per path
     * @param chunks chunks completed so far, per path
     */
    void begin(long nanos, long[] bytes, long[] chunks) {
        start = new Snapshot(nanos, bytes.clone(), chunks.clone());
        history.clear();
    }

    /**
     * @param nanos now
     * @param bytes bytes completed so far, per path
     * @param chunks chunks completed so far, per path
     * @return bits/s per path
     */
    double[] sample(long nanos, long[] bytes, long[] chunks) {
        return sample(nanos, bytes, chunks, new long[bytes.length]);
    }

    /**
     * @param nanos now
     * @param bytes bytes completed so far, per path
     * @param chunks chunks completed so far, per path
     * @param latencyNanos per path, a chunk's completion latency now (PathStats' smoothed latency): a
     *     chunk completed in the window may have been on the wire that long before the window began
     * @return bits/s per path
     */
    double[] sample(long nanos, long[] bytes, long[] chunks, long[] latencyNanos) {
        while (!history.isEmpty() && history.peekFirst().nanos() < nanos - HISTORY_NANOS) {
            history.pollFirst();
        }
        double[] rates = new double[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            rates[i] = average(start, nanos, bytes, i);
            Iterator<Snapshot> newestFirst = history.descendingIterator();
            while (newestFirst.hasNext()) {
                Snapshot ref = newestFirst.next();
                long dc = chunks[i] - ref.chunks()[i];
                if (nanos - ref.nanos() >= WINDOW_MILLIS * 1_000_000 && dc >= MIN_CHUNKS) {
                    long db = bytes[i] - ref.bytes()[i];
                    rates[i] = (db - 2 * (db / (double) dc)) * 8e9 / (nanos - ref.nanos() + latencyNanos[i]);
                    break;
                }
            }
        }
        history.addLast(new Snapshot(nanos, bytes.clone(), chunks.clone()));
        return rates;
    }

    /**
     * @param nanos now
     * @param bytes bytes completed so far, per path
     * @return bits/s per path over the whole phase
     */
    double[] average(long nanos, long[] bytes) {
        double[] rates = new double[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            rates[i] = average(start, nanos, bytes, i);
        }
        return rates;
    }

    /** @return bytes per path completed since the phase started */
    long[] since(long[] bytes) {
        long[] d = new long[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            d[i] = bytes[i] - start.bytes()[i];
        }
        return d;
    }

    private static double average(Snapshot from, long nanos, long[] bytes, int i) {
        long dt = nanos - from.nanos();
        return dt <= 0 ? 0 : (bytes[i] - from.bytes()[i]) * 8e9 / dt;
    }
}
