package dev.virtuoso.commands.scale;

/**
 * One run of the scale bench at one connection count (both ends in one process).
 *
 * @param connections connections opened
 * @param paths paths per connection
 * @param gib data moved and verified, GiB
 * @param seconds transfer wall time (first post to last verified receive)
 * @param gbits aggregate goodput, Gbit/s
 * @param cpuPerGib process CPU seconds per GiB over the transfer
 * @param benchCpuPerGib of which the bench's own driving thread (post, poll, verify)
 * @param threadsBefore live threads before the first connection
 * @param threads live threads with every connection established (highest seen during the run)
 * @param peakRssMb peak RSS of the run, MB (10^6 bytes)
 * @param rssPerConnectionKib RSS growth from setting up the connections, minus their application
 *     buffers, per connection (both ends), KiB
 * @param heapPerConnectionKib live heap growth per connection (after a full GC), KiB
 * @param directPerConnectionKib direct-buffer growth per connection minus application buffers, KiB
 * @param setupCpuMs process CPU to set up one connection (both ends, buffers registered), ms, over
 *     all N (the first ones include class loading and JIT compilation)
 * @param laterSetupCpuMs the same over the second half of the connections only (warmed up)
 * @param setupWallMs wall time to set up one connection (one after the other), ms
 * @param iperfGbits iperf3 -P N on loopback in the same run, Gbit/s, or -1 if not run
 * @param iperfCpuPerGib iperf3 client + server CPU (getrusage) per GiB, or -1
 * @param iperfNote why iperf3 did not run, or empty
 * @param setupCpuByThread the setup's CPU by thread role, for people
 * @param transferCpuByThread the transfer's CPU by thread role per GiB and per message, for people
 *     (see {@link #transferText})
 */
public record ScaleResult(int connections, int paths, double gib, double seconds, double gbits, double cpuPerGib,
        double benchCpuPerGib, int threadsBefore, int threads, double peakRssMb, double rssPerConnectionKib,
        double heapPerConnectionKib, double directPerConnectionKib, double setupCpuMs, double laterSetupCpuMs, double setupWallMs,
        double iperfGbits, double iperfCpuPerGib, String iperfNote, String setupCpuByThread, String transferCpuByThread) {

    /** @return this result with iperf3's numbers (or why it did not run) */
    ScaleResult withIperf(double gbits, double cpuPerGib, String note) {
        return new ScaleResult(connections, paths, gib, seconds, this.gbits, this.cpuPerGib, benchCpuPerGib, threadsBefore,
                threads, peakRssMb, rssPerConnectionKib, heapPerConnectionKib, directPerConnectionKib, setupCpuMs,
                laterSetupCpuMs, setupWallMs, gbits, cpuPerGib, note, setupCpuByThread, transferCpuByThread);
    }

    /**
     * The transfer's CPU by thread, so a run shows where its CPU per GiB goes: per GiB moved and per
     * message (both ends), e.g. {@code process 7.41 s/GiB (452 us/msg): driving thread 0.41 s/GiB
     * (25 us/msg), virtuoso threads: engine 1.40 s/GiB (85 us/msg), soft 4.30 s/GiB (262 us/msg)}.
     *
     * @param cpu CPU spent over the transfer
     * @param gib GiB moved (all connections)
     * @param messages messages moved (all connections)
     * @return the text; roles the platform does not report are left out
     */
    static String transferText(dev.virtuoso.commands.bench.CpuUsage cpu, double gib, long messages) {
        StringBuilder sb = new StringBuilder();
        sb.append("process ").append(perUnit(cpu.processSeconds(), gib, messages));
        sb.append(": driving thread ").append(perUnit(cpu.benchThreadSeconds(), gib, messages));
        sb.append(", virtuoso threads:");
        String[] sep = {" "};
        cpu.virtuosoThreadSeconds().forEach((role, s) -> {
            sb.append(sep[0]).append(role).append(' ').append(perUnit(s, gib, messages));
            sep[0] = ", ";
        });
        return sb.toString();
    }

    private static String perUnit(double seconds, double gib, long messages) {
        if (seconds < 0 || gib <= 0 || messages <= 0) {
            return "n/a";
        }
        return String.format(java.util.Locale.ROOT, "%.2f s/GiB (%.0f us/msg)", seconds / gib, seconds * 1e6 / messages);
    }

    /** CSV header matching {@link #csv()}. */
    public static final String CSV_HEADER = "connections,paths,gib,seconds,gbits,cpu_s_per_gib,bench_thread_cpu_s_per_gib,"
            + "threads_before,threads,peak_rss_mb,rss_per_conn_kib,heap_per_conn_kib,direct_per_conn_kib,"
            + "setup_cpu_ms_per_conn,later_setup_cpu_ms_per_conn,setup_wall_ms_per_conn,iperf3_gbits,iperf3_cpu_s_per_gib,ratio";

    /** @return Virtuoso's goodput over iperf3's, or -1 */
    public double ratio() {
        return iperfGbits > 0 ? gbits / iperfGbits : -1;
    }

    /** @return one CSV line */
    public String csv() {
        return String.format(java.util.Locale.ROOT, "%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%.1f,%.0f,%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,%.3f,%.3f",
                connections, paths, gib, seconds, gbits, cpuPerGib, benchCpuPerGib, threadsBefore, threads, peakRssMb,
                rssPerConnectionKib, heapPerConnectionKib, directPerConnectionKib, setupCpuMs, laterSetupCpuMs, setupWallMs, iperfGbits,
                iperfCpuPerGib, ratio());
    }
}
