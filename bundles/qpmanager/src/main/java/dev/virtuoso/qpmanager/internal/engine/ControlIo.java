package dev.virtuoso.qpmanager.internal.engine;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The control I/O of every connection of one connector: a fixed number of selector threads
 * ({@code virtuoso-ctrl-io<i>-<connector>}), each running the {@link ControlChannel}s assigned to
 * it round-robin. The number of threads does not grow with the number of connections; a quiet
 * channel costs a timer check per sweep (a quarter of the shortest heartbeat interval, 5..250 ms).
 * Owned by the {@link Connector}, which stops it on close.
 */
final class ControlIo implements AutoCloseable {
    /** Longest sweep period: heartbeats and liveness are checked at least this often. */
    static final long MAX_SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long MIN_SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final Loop[] loops;
    private final AtomicInteger next = new AtomicInteger();

    /**
     * Opens the selectors and starts the threads.
     *
     * @param name the owner's name (in the thread names)
     * @param threads number of threads, at least 1
     * @throws IOException if a selector cannot be opened
     */
    ControlIo(String name, int threads) throws IOException {
        this(name, threads, Selector::open);
    }

    /** Opens a selector (tests: one that fails). */
    interface SelectorOpener {
        Selector open() throws IOException;
    }

    ControlIo(String name, int threads, SelectorOpener opener) throws IOException {
        if (threads < 1) {
            throw new IllegalArgumentException("control I/O threads must be at least 1: " + threads);
        }
        loops = new Loop[threads];
        try {
            for (int i = 0; i < threads; i++) {
                loops[i] = new Loop("virtuoso-ctrl-io" + i + "-" + name, opener.open());
            }
        } catch (IOException e) {
            // no thread has started: close the selectors opened so far here (a loop closes its own
            // only when its thread ends)
            for (Loop l : loops) {
                if (l != null) {
                    l.closeUnstarted();
                }
            }
            throw e;
        }
        for (Loop l : loops) {
            l.thread.start();
        }
    }

    /** @return the default number of threads: one per 8 processors, 1..4 */
    static int defaultThreads() {
        return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 8));
    }

    /** @return number of threads */
    int threads() {
        return loops.length;
    }

    /** @return the loop the next channel goes to */
    Loop assign() {
        return loops[Math.floorMod(next.getAndIncrement(), loops.length)];
    }

    /** Stops every thread, waiting up to {@code timeoutMillis} for each; channels left are broken. */
    void close(long timeoutMillis) {
        for (Loop l : loops) {
            if (l != null) {
                l.stop();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (Loop l : loops) {
            if (l != null) {
                l.join(deadline);
            }
        }
    }

    @Override
    public void close() {
        close(5000);
    }

    /** One selector thread and the channels it runs. */
    static final class Loop implements Runnable {
        final Thread thread;
        private final Selector selector;
        /** Channels that asked for service (registration, flush, close), each at most once. */
        private final ArrayDeque<ControlChannel> requests = new ArrayDeque<>();
        /** Registered channels (loop thread only); each knows its index here. */
        private final List<ControlChannel> channels = new ArrayList<>();
        private volatile boolean running = true;
        private long sweepNanos = MAX_SWEEP_NANOS;

        Loop(String name, Selector selector) {
            this.selector = selector;
            thread = new Thread(this, name);
            thread.setDaemon(true);
        }

        /** Any thread: have the loop service {@code c} soon (register it first if new). */
        void request(ControlChannel c) {
            synchronized (requests) {
                requests.add(c);
            }
            selector.wakeup();
        }

        @Override
        public void run() {
            long nextSweep = System.nanoTime() + sweepNanos;
            try {
                while (running) {
                    long now = System.nanoTime();
                    serveRequests(now);
                    if (now - nextSweep >= 0) {
                        for (int i = channels.size() - 1; i >= 0; i--) {
                            channels.get(i).sweep(now);
                        }
                        nextSweep = now + sweepNanos;
                    }
                    long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextSweep - now));
                    selector.select(waitMillis);
                    now = System.nanoTime();
                    for (SelectionKey k : selector.selectedKeys()) {
                        if (k.isValid() && k.attachment() instanceof ControlChannel c) {
                            c.pump(now);
                        }
                    }
                    selector.selectedKeys().clear();
                }
            } catch (IOException | RuntimeException e) {
                // the selector itself failed: every channel of this loop breaks below
            } finally {
                serveRequests(System.nanoTime());
                for (int i = channels.size() - 1; i >= 0; i--) {
                    channels.get(i).loopStopped();
                }
                try {
                    selector.close();
                } catch (IOException e) {
                    // stopping anyway
                }
            }
        }

        private void serveRequests(long now) {
            while (true) {
                ControlChannel c;
                synchronized (requests) {
                    c = requests.poll();
                }
                if (c == null) {
                    return;
                }
                c.serve(this, now);
            }
        }

        /** Loop thread: registers {@code c} on the selector and in the list. */
        SelectionKey register(ControlChannel c, java.nio.channels.SocketChannel socket) throws IOException {
            SelectionKey key = socket.register(selector, SelectionKey.OP_READ, c);
            c.index = channels.size();
            channels.add(c);
            long s = Math.max(MIN_SWEEP_NANOS, Math.min(MAX_SWEEP_NANOS, c.heartbeatNanos() / 4));
            sweepNanos = Math.min(sweepNanos, s);
            return key;
        }

        /** Loop thread: forgets {@code c} (swap-remove). */
        void forget(ControlChannel c) {
            int i = c.index;
            if (i < 0 || i >= channels.size() || channels.get(i) != c) {
                return;
            }
            ControlChannel last = channels.remove(channels.size() - 1);
            if (last != c) {
                channels.set(i, last);
                last.index = i;
            }
            c.index = -1;
        }

        /** @return channels registered (loop thread, or tests after the fact) */
        int size() {
            return channels.size();
        }

        /** Owner, when the loop's thread never started: releases the selector. */
        void closeUnstarted() {
            try {
                selector.close();
            } catch (IOException e) {
                // failing anyway
            }
        }

        void stop() {
            running = false;
            selector.wakeup();
        }

        void join(long deadlineNanos) {
            if (thread == Thread.currentThread()) {
                return;
            }
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
