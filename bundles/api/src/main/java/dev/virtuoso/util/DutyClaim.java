package dev.virtuoso.util;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who runs an agent's duty cycle now, when pollers may run it too ({@link InvokerLease}): one thread
 * at a time takes the claim (a CAS; a thread that finds it taken goes on at once) and its release
 * publishes the agent's state to the next holder, so that state keeps one owner per duty cycle.
 * Not reentrant: a nested claim by the holder fails.
 */
public final class DutyClaim {
    private final AtomicInteger held = new AtomicInteger();
    /**
     * The holder, written only by it under the claim. Plain: a thread reads it only to ask whether
     * it holds the claim itself, and a thread always sees its own last write (or a later one).
     */
    private Thread holder;

    /** @return true if the calling thread now holds the claim */
    public boolean claim() {
        if (held.get() != 0 || !held.compareAndSet(0, 1)) {
            return false;
        }
        holder = Thread.currentThread();
        return true;
    }

    /** Holder: gives the claim up (what it wrote before is visible to the next holder). */
    public void release() {
        holder = null;
        held.set(0);
    }

    /** @return true if the calling thread holds the claim */
    public boolean heldByCurrentThread() {
        return holder == Thread.currentThread();
    }
}
