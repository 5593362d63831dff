package dev.virtuoso.commands.report;

/**
 * One measured phase of a run, a row of the summary table.
 *
 * @param name what the phase is, e.g. {@code single path}
 * @param op the MP verb ({@code WRITE}, {@code SEND})
 * @param paths paths the connection used
 * @param policy load-balancing policies that carried the phase, in order (e.g. {@code lb-adaptive},
 *     or {@code lb-single then lb-roundrobin} if one went away mid-phase)
 * @param bytes bytes moved, every one verified
 * @param nanos duration
 * @param capacityBitsPerSecond sum of the rates of the paths used
 * @param pathBytes bytes per physical path (path 0, 1, ...) completed during the phase
 */
public record PhaseResult(String name, String op, int paths, String policy, long bytes, long nanos,
        long capacityBitsPerSecond, long[] pathBytes) {

    /** @return goodput in bits/s */
    public double goodput() {
        return nanos <= 0 ? 0 : bytes * 8e9 / nanos;
    }

    /** @return goodput as a fraction of the capacity of the paths used */
    public double utilisation() {
        return capacityBitsPerSecond <= 0 ? 0 : goodput() / capacityBitsPerSecond;
    }
}
