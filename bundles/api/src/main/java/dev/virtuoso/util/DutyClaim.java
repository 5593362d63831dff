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
    /** A thread that found the claim held left work for the holder ({@link #defer}). */
    private volatile boolean deferred;

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

    /**
     * After a failed {@link #claim}: leaves work for the holder, which may already be past the point
     * of its duty cycle where it would have found it (a request posted, a doorbell rung); the holder
     * takes it after its release ({@link #claimDeferred}). Tries the claim once more, as the holder
     * may have released meanwhile.
     *
     * @return true if the calling thread now holds the claim: it then runs all deferred work itself
     */
    public boolean defer() {
        deferred = true;
        return claimDeferred();
    }

    /**
     * Holder, right after {@link #release}: takes the claim back if work was deferred meanwhile
     * (and clears the request). Call it in a loop, running the deferred work and releasing each
     * time it returns true. The flag is written before the deferring thread's claim and read after
     * the holder's release, so one of the two sees the other: no deferred work is left behind.
     *
     * @return true if the calling thread now holds the claim to run deferred work
     */
    public boolean claimDeferred() {
        if (!deferred || !claim()) {
            return false;
        }
        deferred = false;
        return true;
    }

    /** @return true if the calling thread holds the claim */
    public boolean heldByCurrentThread() {
        return holder == Thread.currentThread();
    }
}
