package dev.virtuoso.itests.rxe;

/**
 * The bandwidth report perftest sides exchange at the end of a run ({@code struct bw_report_data},
 * the fields sent without per-port reporting).
 *
 * @param size message size in bytes
 * @param iterations messages per QP
 * @param peakMBps peak bandwidth, MB/s
 * @param averageMBps average bandwidth, MB/s
 * @param messageRateMpps message rate, millions per second
 */
public record BwReport(long size, long iterations, double peakMBps, double averageMBps,
        double messageRateMpps) {

    /**
     * @param size message size
     * @param iterations messages
     * @param nanos time the transfer took
     * @return a report with peak = average
     */
    public static BwReport of(long size, long iterations, long nanos) {
        double seconds = Math.max(nanos, 1) / 1e9;
        double mbps = size * (double) iterations / seconds / 1e6;
        return new BwReport(size, iterations, mbps, mbps, iterations / seconds / 1e6);
    }
}
