package dev.virtuoso.commands.demo;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.virtuoso.api.MultipathConnection;

/**
 * What a running phase shows: its name, the bytes verified so far out of the total, and the
 * connection whose paths carry it. Written by the transfer thread, read by the progress display.
 */
public final class PhaseProgress {
    private final String name;
    private final long totalBytes;
    private final MultipathConnection connection;
    private final Supplier<String> policy;
    private final AtomicLong verifiedBytes = new AtomicLong();
    private final AtomicLong verifiedRequests = new AtomicLong();
    private final Set<String> policiesSeen = new LinkedHashSet<>();

    /**
     * @param name label shown on the progress line
     * @param totalBytes bytes the phase moves
     * @param connection the sending connection
     * @param policy the load-balancing policy in use, read at each refresh
     */
    public PhaseProgress(String name, long totalBytes, MultipathConnection connection, Supplier<String> policy) {
        this.name = name;
        this.totalBytes = totalBytes;
        this.connection = connection;
        this.policy = policy;
    }

    public String name() {
        return name;
    }

    public long totalBytes() {
        return totalBytes;
    }

    public MultipathConnection connection() {
        return connection;
    }

    /** @return the policy name now */
    public String policy() {
        return policy.get();
    }

    /** Records the policy in use now among those that carried the phase. */
    public synchronized void notePolicy() {
        policiesSeen.add(policy.get());
    }

    /**
     * @return the policies seen carrying the phase since the last call (or the start), in order,
     *     joined with {@code " then "}; the next call reports those seen from now on
     */
    public synchronized String takePolicies() {
        if (policiesSeen.isEmpty()) {
            notePolicy();
        }
        String seen = String.join(" then ", policiesSeen);
        policiesSeen.clear();
        return seen;
    }

    /** @return bytes moved and verified so far */
    public long verifiedBytes() {
        return verifiedBytes.get();
    }

    /** @return work requests whose bytes were verified so far */
    public long verifiedRequests() {
        return verifiedRequests.get();
    }

    /** @param bytes bytes of one work request just verified */
    void add(long bytes) {
        verifiedRequests.incrementAndGet();
        verifiedBytes.addAndGet(bytes);
    }
}
