package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

class BenchReportTest {

    @Test
    void cpuJsonHasTheProcessTheBenchThreadAndEveryRole() {
        Map<String, Double> roles = new TreeMap<>(Map.of("soft", 1.25, "conn", 0.5));
        String json = BenchReport.cpuJson(new CpuUsage(2.0, 0.125, roles, 3.5));
        assertEquals("{\"process_s\": 2.0000, \"bench_thread_s\": 0.1250, \"virtuoso_threads_s\": 1.7500, "
                + "\"machine_s\": 3.5000, \"by_role_s\": {\"conn\": 0.5000, \"soft\": 1.2500}}", json);
        assertEquals("{\"process_s\": -1.0000, \"bench_thread_s\": -1.0000, \"virtuoso_threads_s\": 0.0000, "
                + "\"machine_s\": -1.0000, \"by_role_s\": {}}", BenchReport.cpuJson(new CpuUsage(-1, -1, Map.of())));
    }
}
