package dev.virtuoso.util;

import java.util.concurrent.locks.LockSupport;

/**
 * When an agent's own thread stands back for the threads that run its duty cycles on their polls
 * (Aeron's agent invoker): each poll renews a lease; while the lease runs and the polls come often
 * enough, the agent's thread parks instead of spinning beside them; a poller about to block revokes
 * the lease so the agent's thread takes over at once. Used by the core's engine agents
 * ({@code engineInvokeOnPoll}) and the soft RNIC's engine ({@code invokeOnPoll}).
 *
 * <p>{@link #renew} and {@link #revoke}: any thread. {@link #standBackNanos}: the agent's thread
 * only.
 */
public final class InvokerLease {
    private final long leaseNanos;
    private final int minPollsPerLease;
    private volatile long leaseEnd = System.nanoTime();
    // ---- the agent's thread only: how often pollers polled lately
    private long rateAt = System.nanoTime();
    private long rateCount;
    private boolean continuous;

    /**
     * @param leaseNanos how long the agent's thread stands back after a poll
     * @param minPollsPerLease polls per lease below which it does not (a thread that polls now and
     *     then would otherwise hold up the agent's other work until its next poll)
     */
    public InvokerLease(long leaseNanos, int minPollsPerLease) {
        if (leaseNanos <= 0 || minPollsPerLease < 1) {
            throw new IllegalArgumentException("lease " + leaseNanos + " ns, " + minPollsPerLease + " polls");
        }
        this.leaseNanos = leaseNanos;
        this.minPollsPerLease = minPollsPerLease;
    }

    /** Poller: the lease runs for a full term from {@code now} (a shared write at most twice per term). */
    public void renew(long now) {
        if (leaseEnd - now < leaseNanos / 2) {
            leaseEnd = now + leaseNanos;
        }
    }

    /**
     * Poller about to block (or to stop polling): ends the lease.
     *
     * @return true if it was running
     */
    public boolean revoke() {
        long now = System.nanoTime();
        if (leaseEnd - now > 0) {
            leaseEnd = now - 1;
            return true;
        }
        return false;
    }

    /**
     * Poller about to block: ends the lease and, if it was running, unparks the agent's thread so
     * it takes over now rather than when its stand-back would have ended.
     *
     * @param agentThread the agent's thread (null if not started)
     */
    public void handBack(Thread agentThread) {
        if (revoke() && agentThread != null) {
            LockSupport.unpark(agentThread);
        }
    }

    /**
     * The agent's thread: how long to stand back now.
     *
     * @param now the clock
     * @param polls the pollers' polls so far (a count that only grows)
     * @return the rest of the lease if it runs and the polls over the last term or more came at
     *     least {@code minPollsPerLease} per term, else 0
     */
    public long standBackNanos(long now, long polls) {
        long since = now - rateAt;
        if (since >= leaseNanos) {
            continuous = (polls - rateCount) * leaseNanos >= minPollsPerLease * since;
            rateAt = now;
            rateCount = polls;
        }
        long left = leaseEnd - now;
        return left > 0 && continuous ? left : 0;
    }
}
