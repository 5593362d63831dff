package dev.virtuoso.itests.robustness.soak;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Live threads, open file descriptors and heap used after GC, at one moment.
 *
 * @param threads live threads of the JVM
 * @param fds entries of {@code /proc/self/fd} (0 where there is no such directory)
 * @param heapBytes heap used after three GC requests
 */
public record ProcessSnapshot(int threads, long fds, long heapBytes) {

    /** @return a snapshot after asking for GC three times */
    public static ProcessSnapshot take() throws IOException, InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return new ProcessSnapshot(ManagementFactory.getThreadMXBean().getThreadCount(), openDescriptors(),
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }

    /**
     * Waits (at most 10 s) for closing threads and descriptors to go away before comparing.
     *
     * @param base the baseline
     * @return the last snapshot taken
     */
    public static ProcessSnapshot settle(ProcessSnapshot base) throws IOException, InterruptedException {
        return settle(base, true);
    }

    /**
     * Like {@link #settle(ProcessSnapshot)}, waiting for the threads only (for a baseline taken before
     * classes were loaded, whose jar files stay open).
     *
     * @param base the baseline
     * @return the last snapshot taken
     */
    public static ProcessSnapshot settleThreads(ProcessSnapshot base) throws IOException, InterruptedException {
        return settle(base, false);
    }

    private static ProcessSnapshot settle(ProcessSnapshot base, boolean fdsToo)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        ProcessSnapshot s = take();
        while ((s.threads > base.threads || (fdsToo && s.fds > base.fds)) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            s = take();
        }
        return s;
    }

    static long openDescriptors() throws IOException {
        Path dir = Path.of("/proc/self/fd");
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    /**
     * @param base earlier snapshot
     * @param heapTolerance heap growth allowed
     * @return true if threads or descriptors are above {@code base} or the heap grew by more than the tolerance
     */
    public boolean leakedSince(ProcessSnapshot base, long heapTolerance) {
        return threads > base.threads || fds > base.fds || heapBytes > base.heapBytes + heapTolerance;
    }

    Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("threads", threads);
        m.put("fds", fds);
        m.put("heapUsedAfterGcKiB", heapBytes >> 10);
        return m;
    }

    @Override
    public String toString() {
        return "threads=" + threads + " fds=" + fds + " heap=" + (heapBytes >> 10) + " KiB";
    }
}
