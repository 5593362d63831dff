package dev.virtuoso.commands.report;

/**
 * One measured phase of a run, a row of the summary table.
 *
 * @param name what the phase is, e.g. {@code single path}
 * @param op the MP verb ({@code WRITE}, {@code SEND})
 * @param paths paths the connection used
 * @param policy load-balancing policy in use
 * @param bytes bytes moved, every one verified
 * @param nanos duration
 * @param capacityBitsPerSecond sum of the rates of the paths used
 */
public record PhaseResult(String name, String op, int paths, String policy, long bytes, long nanos,
        long capacityBitsPerSecond) {

    /** @return goodput in bits/s */
    public double goodput() {
        return nanos <= 0 ? 0 : bytes * 8e9 / nanos;
    }

    /** @return goodput as a fraction of the capacity of the paths used */
    public double utilisation() {
        return capacityBitsPerSecond <= 0 ? 0 : goodput() / capacityBitsPerSecond;
    }
}
