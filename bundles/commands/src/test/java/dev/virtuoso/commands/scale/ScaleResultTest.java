package dev.virtuoso.commands.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.virtuoso.commands.bench.CpuUsage;

class ScaleResultTest {

    @Test
    void transferTextSplitsTheCpuPerGibAndPerMessageByThreadRole() {
        Map<String, Double> roles = new TreeMap<>(Map.of("engine", 1.0, "soft", 3.0));
        // 2 GiB in 32768 messages of 64 KiB
        String t = ScaleResult.transferText(new CpuUsage(8.0, 0.5, roles), 2.0, 32768);
        assertEquals("process 4.00 s/GiB (244 us/msg): driving thread 0.25 s/GiB (15 us/msg), virtuoso threads: "
                + "engine 0.50 s/GiB (31 us/msg), soft 1.50 s/GiB (92 us/msg)", t);
    }

    @Test
    void transferTextSaysWhatThePlatformDidNotReport() {
        String t = ScaleResult.transferText(new CpuUsage(-1, -1, Map.of()), 1.0, 16);
        assertEquals("process n/a: driving thread n/a, virtuoso threads:", t);
        assertEquals("process n/a: driving thread n/a, virtuoso threads: soft n/a",
                ScaleResult.transferText(new CpuUsage(1, 1, Map.of("soft", 1.0)), 0, 0));
    }
}
