package dev.virtuoso.commands.scale;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The process's resident memory (Linux {@code /proc/self/status}), heap, direct buffers, threads
 * and CPU clock at one instant, for the scale bench. Fields are -1 where the platform does not
 * report them.
 *
 * @param rssBytes resident set size ({@code VmRSS})
 * @param peakRssBytes peak resident set size since the last {@link #resetPeak} ({@code VmHWM})
 * @param heapUsedBytes heap in use
 * @param directBytes memory of direct byte buffers in use
 * @param threads live threads
 * @param cpuNanos process CPU time (user + system, every thread)
 */
public record ProcessStats(long rssBytes, long peakRssBytes, long heapUsedBytes, long directBytes, int threads,
        long cpuNanos) {

    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path CLEAR_REFS = Path.of("/proc/self/clear_refs");

    /** @return the numbers now */
    public static ProcessStats now() {
        long rss = -1;
        long hwm = -1;
        try {
            for (String line : Files.readAllLines(STATUS, StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmRSS:")) {
                    rss = kib(line);
                } else if (line.startsWith("VmHWM:")) {
                    hwm = kib(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: stays -1
        }
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        long direct = -1;
        List<BufferPoolMXBean> pools = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class);
        for (BufferPoolMXBean p : pools) {
            if (p.getName().equals("direct")) {
                direct = p.getMemoryUsed();
            }
        }
        return new ProcessStats(rss, hwm, mem.getHeapMemoryUsage().getUsed(), direct,
                ManagementFactory.getThreadMXBean().getThreadCount(), processCpuNanos());
    }

    /** @return the numbers after a full garbage collection (so the heap figure is live data only) */
    public static ProcessStats afterGc() {
        System.gc();
        return now();
    }

    /**
     * Resets the kernel's peak RSS of this process to its current RSS (Linux 4.0+: writing 5 to
     * {@code /proc/self/clear_refs}), so each run reports its own peak.
     *
     * @return false if the platform does not allow it (the peak then spans earlier runs too)
     */
    public static boolean resetPeak() {
        try {
            Files.writeString(CLEAR_REFS, "5");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static long kib(String line) {
        String[] f = line.trim().split("\\s+");
        return Long.parseLong(f[1]) * 1024;
    }

    private static long processCpuNanos() {
        try {
            Object v = ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(new ObjectName("java.lang:type=OperatingSystem"), "ProcessCpuTime");
            return v instanceof Long l ? l : -1;
        } catch (JMException | RuntimeException e) {
            return -1;
        }
    }
}
