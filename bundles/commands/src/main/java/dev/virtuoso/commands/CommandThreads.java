package dev.virtuoso.commands;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The threads running one command component's long commands (demo, bench, scale): when the
 * component stops (the shell ended, the framework or the bundle stops) they are interrupted and the
 * component waits, bounded, for them to close their connections.
 */
final class CommandThreads {
    private static final long STOP_WAIT_MILLIS = 10_000;

    /** A command's body. */
    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    /**
     * Runs {@code body} in the calling thread, registered for {@link #stop()}.
     *
     * @param name the command's name, in the line said when it is stopped
     * @param lost what the user does not get when it is stopped ("no results were written")
     * @throws Exception what the body throws, unless the component or an interrupt stopped it
     */
    void run(String name, String lost, Body body) throws Exception {
        Thread me = Thread.currentThread();
        running.add(me);
        try {
            if (stopping) {
                // stop() set the flag before it looked at the running threads: it may not have seen us
                stopped(name, lost);
                return;
            }
            body.run();
        } catch (InterruptedException e) {
            // the shell interrupts its command thread on Ctrl-C and when it stops
            stopped(name, lost);
        } catch (Exception e) {
            if (!stopping) {
                throw e;
            }
            stopped(name, lost);
        } finally {
            running.remove(me);
            synchronized (running) {
                running.notifyAll();
            }
        }
    }

    private static void stopped(String name, String lost) {
        System.out.println();
        System.out.println(name + " stopped (interrupted, or the shell or the OSGi framework is shutting down): "
                + lost);
    }

    /** Component deactivation: interrupts every running command and waits up to 10 s for them to end. */
    void stop() throws InterruptedException {
        stopping = true;
        for (Thread t : running) {
            t.interrupt();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MILLIS);
        synchronized (running) {
            while (!running.isEmpty() && System.nanoTime() < deadline) {
                running.wait(50);
            }
        }
    }
}
