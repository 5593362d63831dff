package dev.virtuoso.itests.rxe;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Diagnostics for a peer that stops making progress: every line printed through {@link #stream}
 * counts as progress; after {@code stallSeconds} without one, the stack of every thread is printed
 * (and again after each further stall), each line flushed, so a hung run under emulation shows
 * where it waits. Its thread ({@code mp-watchdog}) is a daemon stopped by {@link #close}.
 */
final class StallWatchdog implements AutoCloseable {
    private final PrintStream out;
    private final long stallNanos;
    private final Thread thread;
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean running = true;

    StallWatchdog(PrintStream target, int stallSeconds) {
        this.stallNanos = TimeUnit.SECONDS.toNanos(stallSeconds);
        this.out = new PrintStream(target, true) {
            @Override
            public void println(String x) {
                lastProgress = System.nanoTime();
                super.println(x);
            }
        };
        thread = new Thread(this::watch, "mp-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    /** The stream whose lines count as progress. */
    PrintStream stream() {
        return out;
    }

    private void watch() {
        while (running) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            if (System.nanoTime() - lastProgress >= stallNanos) {
                dump();
                lastProgress = System.nanoTime();
            }
        }
    }

    private void dump() {
        synchronized (out) {
            out.println("MP-STALL no progress for " + TimeUnit.NANOSECONDS.toSeconds(stallNanos) + " s; threads:");
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                Thread t = e.getKey();
                out.println("MP-STALL \"" + t.getName() + "\" " + t.getState());
                for (StackTraceElement f : e.getValue()) {
                    out.println("MP-STALL     at " + f);
                }
            }
            out.flush();
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
