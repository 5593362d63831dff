package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Busy CPU time of the whole machine, every CPU, from the first line of Linux's {@code /proc/stat}:
 * user, nice, system, irq, softirq and steal (not idle, not iowait). Unlike a process's CPU time it
 * includes the kernel's softirq work (the network stack's receive side) and every other process,
 * so a transfer's share is comparable between Virtuoso's user-space transport and kernel TCP on a
 * machine that does nothing else.
 */
final class MachineCpu {
    private static final Path PROC_STAT = Path.of("/proc/stat");
    /** {@code USER_HZ}: Linux reports {@code /proc/stat} in 1/100 s on every architecture. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private MachineCpu() {
    }

    /** @return the machine's busy CPU time so far in nanoseconds, or -1 where there is no /proc/stat */
    static long busyNanos() {
        try {
            List<String> lines = Files.readAllLines(PROC_STAT, StandardCharsets.US_ASCII);
            return lines.isEmpty() ? -1 : busyNanos(lines.get(0));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * @param cpuLine {@code cpu  user nice system idle iowait irq softirq steal ...}
     * @return busy nanoseconds, or -1 if the line is not the aggregate CPU line
     */
    static long busyNanos(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        if (f.length < 8 || !f[0].equals("cpu")) {
            return -1;
        }
        long ticks = 0;
        int[] busy = {1, 2, 3, 6, 7}; // user nice system irq softirq
        for (int i : busy) {
            ticks += Long.parseLong(f[i]);
        }
        if (f.length > 8) {
            ticks += Long.parseLong(f[8]); // steal
        }
        return ticks * NANOS_PER_TICK;
    }
}
