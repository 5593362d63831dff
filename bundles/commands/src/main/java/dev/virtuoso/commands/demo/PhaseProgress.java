package dev.virtuoso.commands.demo;

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

    /** @return bytes moved and verified so far */
    public long verifiedBytes() {
        return verifiedBytes.get();
    }

    /** @param bytes bytes just verified */
    void add(long bytes) {
        verifiedBytes.addAndGet(bytes);
    }
}
