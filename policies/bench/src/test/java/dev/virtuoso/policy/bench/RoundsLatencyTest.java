package dev.virtuoso.policy.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

class RoundsLatencyTest {
    @Test
    void everySystemHasARowPerRoundThenItsMedianAndRatio() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        RoundsLatency.run(new PrintStream(b, true, StandardCharsets.UTF_8), "fabric", 2, 20,
                LatencyBench.Plan.parseSpins("250p"), 2);
        List<String> lines = b.toString(StandardCharsets.UTF_8).lines().toList();
        // systems: qp, mp_send 1 path, mp_send 4 paths; 2 sizes each; 2 rounds + the median
        assertEquals(3 * 2 * 3, lines.size(), String.join("\n", lines));
        for (String l : lines) {
            assertEquals(RoundsLatency.HEADER.split(",").length, l.split(",").length, l);
        }
        assertEquals(6, lines.stream().filter(l -> l.contains(",median,")).count());
        assertTrue(lines.stream().filter(l -> l.startsWith("fabric,qp,") && l.contains(",median,"))
                .allMatch(l -> l.endsWith(",1.00")), "the raw QP is its own reference");
        assertEquals(2 * 2 * 3, lines.stream().filter(l -> l.startsWith("fabric,mp_send,") && l.contains(",250,poll,"))
                .count());
    }

    @Test
    void theMedianOfOddAndEvenRounds() {
        assertEquals(2.0, RoundsLatency.median(List.of(new double[] {3}, new double[] {1}, new double[] {2}), 0));
        assertEquals(2.5, RoundsLatency.median(List.of(new double[] {4}, new double[] {1}, new double[] {2},
                new double[] {3}), 0));
    }
}
