package dev.virtuoso.commands.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * CPU time a bench side spent over its transfer only (not the JVM and framework start): the
 * process's CPU time (the JVM's {@code ProcessCpuTime}, user + system of every thread, JIT and GC
 * included) and the CPU time of the Virtuoso threads ({@code virtuoso-<role>-...}: the soft RNIC's
 * engine, the connection's engine, CQ event and control threads) grouped by role, plus the calling
 * thread (the bench's post and poll loop). Taken as the difference of two {@link Snapshot}s.
 *
 * @param processSeconds process CPU time, or -1 where the JVM does not report it
 * @param benchThreadSeconds CPU time of the thread that took the snapshots, or -1 if unsupported
 * @param virtuosoThreadSeconds CPU time of the {@code virtuoso-*} threads, by role (sorted)
 * @param machineSeconds busy CPU time of the whole machine ({@link MachineCpu}: every process and
 *     the kernel's softirq work), or -1 where unknown
 */
public record CpuUsage(double processSeconds, double benchThreadSeconds, Map<String, Double> virtuosoThreadSeconds,
        double machineSeconds) {

    /** Without the machine's CPU time. */
    public CpuUsage(double processSeconds, double benchThreadSeconds, Map<String, Double> virtuosoThreadSeconds) {
        this(processSeconds, benchThreadSeconds, virtuosoThreadSeconds, -1);
    }

    private static final String PREFIX = "virtuoso-";

    /** @return the sum of the Virtuoso threads' CPU time in seconds */
    public double virtuosoSeconds() {
        return virtuosoThreadSeconds.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** @return the Virtuoso threads' seconds by role, for people: {@code conn 0.031 s, soft 0.047 s} */
    public String rolesText() {
        StringBuilder sb = new StringBuilder();
        virtuosoThreadSeconds.forEach((role, s) -> sb.append(sb.length() == 0 ? "" : ", ")
                .append(String.format(java.util.Locale.ROOT, "%s %.3f s", role, s)));
        return sb.toString();
    }

    /**
     * CPU clocks at one instant.
     *
     * @param processNanos process CPU time, -1 if unknown
     * @param callerNanos the calling thread's CPU time, -1 if unknown
     * @param threadNanos CPU time of each live {@code virtuoso-*} thread, by thread id
     * @param threadRoles role of each of those threads, by thread id
     * @param machineNanos the machine's busy CPU time ({@link MachineCpu}), -1 if unknown
     */
    public record Snapshot(long processNanos, long callerNanos, Map<Long, Long> threadNanos, Map<Long, String> threadRoles,
            long machineNanos) {

        /** Without the machine's CPU time. */
        public Snapshot(long processNanos, long callerNanos, Map<Long, Long> threadNanos, Map<Long, String> threadRoles) {
            this(processNanos, callerNanos, threadNanos, threadRoles, -1);
        }

        /** @return the clocks now (allocates: take it outside the measured loop) */
        public static Snapshot now() {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            boolean threads = mx.isThreadCpuTimeSupported() && mx.isThreadCpuTimeEnabled();
            Map<Long, Long> nanos = new TreeMap<>();
            Map<Long, String> roles = new TreeMap<>();
            if (threads) {
                for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
                    if (t == null || !t.getThreadName().startsWith(PREFIX)) {
                        continue;
                    }
                    long cpu = mx.getThreadCpuTime(t.getThreadId());
                    if (cpu >= 0) {
                        nanos.put(t.getThreadId(), cpu);
                        roles.put(t.getThreadId(), role(t.getThreadName()));
                    }
                }
            }
            return new Snapshot(processCpuNanos(), threads ? mx.getCurrentThreadCpuTime() : -1, nanos, roles,
                    MachineCpu.busyNanos());
        }

        /**
         * @param later a snapshot taken after this one, on the same thread
         * @return the CPU time spent between the two (threads born in between count from 0; threads
         *     that ended in between are lost: the bench's threads live as long as its connection)
         */
        public CpuUsage until(Snapshot later) {
            Map<String, Double> byRole = new TreeMap<>();
            later.threadNanos.forEach((id, end) -> {
                long spent = end - threadNanos.getOrDefault(id, 0L);
                byRole.merge(later.threadRoles.get(id), spent / 1e9, Double::sum);
            });
            return new CpuUsage(delta(processNanos, later.processNanos), delta(callerNanos, later.callerNanos), byRole,
                    delta(machineNanos, later.machineNanos));
        }

        private static double delta(long a, long b) {
            return a < 0 || b < 0 ? -1 : (b - a) / 1e9;
        }
    }

    /**
     * @param threadName a thread's name, {@code virtuoso-<role>-<id>}
     * @return its role ({@code soft}, {@code conn}, {@code cqev}, {@code ctrl}, ...)
     */
    static String role(String threadName) {
        String rest = threadName.substring(PREFIX.length());
        int dash = rest.indexOf('-');
        return dash < 0 ? rest : rest.substring(0, dash);
    }

    private static long processCpuNanos() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Object v = server.getAttribute(new ObjectName("java.lang:type=OperatingSystem"), "ProcessCpuTime");
            return v instanceof Long l ? l : -1;
        } catch (JMException | RuntimeException e) {
            return -1;
        }
    }
}
