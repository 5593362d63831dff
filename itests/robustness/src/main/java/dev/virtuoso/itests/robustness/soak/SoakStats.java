package dev.virtuoso.itests.robustness.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/** What the soak workers did and saw; updated by every worker thread. */
final class SoakStats {
    /** Operation kinds of the mix. */
    enum Kind {
        WRITE, READ, SEND_TO_SERVER, SEND_TO_CLIENT
    }

    /** Most failure descriptions kept for the report. */
    static final int MAX_DETAILS = 50;

    final AtomicLongArray ops = new AtomicLongArray(Kind.values().length);
    final AtomicLongArray bytes = new AtomicLongArray(Kind.values().length);
    final AtomicLongArray failed = new AtomicLongArray(Kind.values().length);
    /** Verified operations below / at or above the split threshold. */
    final LongAdder belowSplit = new LongAdder();
    final LongAdder aboveSplit = new LongAdder();
    final LongAdder mismatches = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder sessionErrors = new LongAdder();
    final LongAdder unexpectedCompletions = new LongAdder();
    final LongAdder connects = new LongAdder();
    final LongAdder disconnects = new LongAdder();
    final LongAdder swaps = new LongAdder();
    final LongAdder batches = new LongAdder();
    /** Sums over every closed connection's paths (client and server side). */
    final LongAdder chunksFailed = new LongAdder();
    final LongAdder pathRetransmissions = new LongAdder();
    private final List<String> details = new ArrayList<>();
    private long detailsDropped;

    void ok(Kind k, long n, boolean large) {
        ops.incrementAndGet(k.ordinal());
        bytes.addAndGet(k.ordinal(), n);
        (large ? aboveSplit : belowSplit).increment();
    }

    void failed(Kind k, String why) {
        failed.incrementAndGet(k.ordinal());
        detail("failed " + k + ": " + why);
    }

    void mismatch(String why) {
        mismatches.increment();
        detail("MISMATCH " + why);
    }

    void timeout(String why) {
        timeouts.increment();
        detail("TIMEOUT " + why);
    }

    void unexpected(String why) {
        unexpectedCompletions.increment();
        detail("UNEXPECTED " + why);
    }

    void sessionError(String why) {
        sessionErrors.increment();
        detail("session error: " + why);
    }

    synchronized void detail(String s) {
        if (details.size() < MAX_DETAILS) {
            details.add(System.currentTimeMillis() + " " + s);
        } else {
            detailsDropped++;
        }
    }

    synchronized List<String> details() {
        List<String> l = new ArrayList<>(details);
        if (detailsDropped > 0) {
            l.add("(" + detailsDropped + " more not kept)");
        }
        return l;
    }

    long totalOps() {
        long s = 0;
        for (int i = 0; i < ops.length(); i++) {
            s += ops.get(i);
        }
        return s;
    }

    long totalBytes() {
        long s = 0;
        for (int i = 0; i < bytes.length(); i++) {
            s += bytes.get(i);
        }
        return s;
    }

    long totalFailed() {
        long s = 0;
        for (int i = 0; i < failed.length(); i++) {
            s += failed.get(i);
        }
        return s;
    }

    /** @return the run's totals, by name */
    Map<String, Object> totals(double elapsed) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("verifiedOps", totalOps());
        m.put("verifiedBytes", totalBytes());
        m.put("verifiedMiBPerSecond", totalBytes() / elapsed / (1 << 20));
        m.put("opsBelowSplit", belowSplit.sum());
        m.put("opsAtOrAboveSplit", aboveSplit.sum());
        m.put("failedOps", totalFailed());
        m.put("mismatches", mismatches.sum());
        m.put("timeouts", timeouts.sum());
        m.put("sessionErrors", sessionErrors.sum());
        m.put("unexpectedCompletions", unexpectedCompletions.sum());
        m.put("batches", batches.sum());
        m.put("connects", connects.sum());
        m.put("disconnects", disconnects.sum());
        m.put("policySwaps", swaps.sum());
        return m;
    }

    /** @return ops, bytes and failures of each operation kind */
    Map<String, Object> perKind() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Kind k : Kind.values()) {
            m.put(k.name(), SoakReport.map("ops", ops.get(k.ordinal()), "bytes", bytes.get(k.ordinal()), "failed",
                    failed.get(k.ordinal())));
        }
        return m;
    }
}
