package dev.virtuoso.policy.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

import javax.management.JMException;
import javax.management.ObjectName;

/**
 * CPU time of this process split by who spent it, from {@code ThreadMXBean.getThreadCpuTime} by
 * thread name: the multipath layer's engine agents, the soft RNIC and its wire, the CQ event
 * threads, the control threads, the application (bench) thread, and the rest of the process (JIT,
 * GC: process CPU time minus the named threads). Taken as the difference of two snapshots; a
 * thread that ends between them loses its time, so snapshot while the connections are open.
 */
final class ThreadCpu {
    /** Who spent the CPU time. */
    enum Part {
        /** {@code virtuoso-engine-*}: decomposer, reassembler, policies, path manager. */
        MULTIPATH,
        /** {@code virtuoso-soft-*}, {@code virtuoso-fabric-*}, {@code virtuoso-udp*}: what an RNIC does in hardware. */
        SOFT_RNIC,
        /** {@code virtuoso-cqev-*}: waiting on completion channels and waking connections. */
        CQ_EVENTS,
        /** {@code virtuoso-ctrl-*}, listener and handshake threads: TCP control channel. */
        CONTROL,
        /** The thread that took the snapshots: the application posting and awaiting completions. */
        APPLICATION,
        /** Any other thread of the process (JIT, GC, JMX): process time minus the named threads. */
        OTHER
    }

    /** @return the part a thread of this name belongs to ({@code null}: counted in {@link Part#OTHER}) */
    static Part partOf(String threadName) {
        if (!threadName.startsWith("virtuoso-")) {
            return null;
        }
        String role = threadName.substring("virtuoso-".length());
        if (role.startsWith("engine")) {
            return Part.MULTIPATH;
        }
        if (role.startsWith("soft-") || role.startsWith("fabric-") || role.startsWith("udp")) {
            return Part.SOFT_RNIC;
        }
        if (role.startsWith("cqev-")) {
            return Part.CQ_EVENTS;
        }
        if (role.startsWith("ctrl-") || role.startsWith("listen-") || role.startsWith("handshake-")) {
            return Part.CONTROL;
        }
        return null;
    }

    private final long processNanos;
    private final long callerNanos;
    private final Map<Long, Long> threadNanos = new HashMap<>();
    private final Map<Long, Part> threadParts = new HashMap<>();

    private ThreadCpu() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM does not measure thread CPU time");
        }
        mx.setThreadCpuTimeEnabled(true);
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            Part p = t == null ? null : partOf(t.getThreadName());
            long cpu = p == null ? -1 : mx.getThreadCpuTime(t.getThreadId());
            if (cpu >= 0) {
                threadNanos.put(t.getThreadId(), cpu);
                threadParts.put(t.getThreadId(), p);
            }
        }
        callerNanos = mx.getCurrentThreadCpuTime();
        processNanos = processCpuNanos();
    }

    /** @return the clocks now */
    static ThreadCpu now() {
        return new ThreadCpu();
    }

    /** @return CPU nanoseconds per part spent from this snapshot to {@code later} */
    Map<Part, Long> until(ThreadCpu later) {
        Map<Part, Long> out = new EnumMap<>(Part.class);
        for (Part p : Part.values()) {
            out.put(p, 0L);
        }
        long named = 0;
        for (Map.Entry<Long, Long> e : later.threadNanos.entrySet()) {
            long spent = e.getValue() - threadNanos.getOrDefault(e.getKey(), 0L);
            out.merge(later.threadParts.get(e.getKey()), spent, Long::sum);
            named += spent;
        }
        long app = later.callerNanos - callerNanos;
        out.put(Part.APPLICATION, app);
        // the process clock ticks coarser than the threads' clocks: never below zero
        out.put(Part.OTHER, Math.max(0, later.processNanos - processNanos - named - app));
        return out;
    }

    /** @return the process's CPU time in ns ({@code ProcessCpuTime}: every thread, user + system) */
    static long processCpuNanos() {
        try {
            Object v = ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(new ObjectName("java.lang:type=OperatingSystem"), "ProcessCpuTime");
            if (v instanceof Long l && l >= 0) {
                return l;
            }
        } catch (JMException e) {
            throw new IllegalStateException("no process CPU time", e);
        }
        throw new IllegalStateException("no process CPU time");
    }
}
