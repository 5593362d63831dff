package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class MachineCpuTest {

    @Test
    void busyTimeIsUserNiceSystemIrqSoftirqAndStealInHundredthsOfASecond() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        assertEquals((100 + 2 + 30 + 4 + 5 + 6) * 10_000_000L,
                MachineCpu.busyNanos("cpu  100 2 30 9000 70 4 5 6 0 0"));
        assertEquals((100 + 2 + 30 + 4 + 5) * 10_000_000L, MachineCpu.busyNanos("cpu 100 2 30 9000 70 4 5"),
                "an old kernel without steal");
    }

    @Test
    void aLineThatIsNotTheMachinesIsUnknown() {
        assertEquals(-1, MachineCpu.busyNanos("cpu0 100 2 30 9000 70 4 5 6"));
        assertEquals(-1, MachineCpu.busyNanos("intr 12345"));
        assertEquals(-1, MachineCpu.busyNanos("cpu 1 2"));
    }

    @Test
    void withoutProcStatTheClockIsUnknown() {
        assumeTrue(!Files.isReadable(Path.of("/proc/stat")), "this machine has /proc/stat");
        assertEquals(-1, MachineCpu.busyNanos());
    }

    @Test
    void theMachineClockGrowsWhereLinuxHasOne() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/stat")), "needs /proc/stat (Linux)");
        long a = MachineCpu.busyNanos();
        long spinUntil = System.nanoTime() + 50_000_000L;
        long x = 0;
        while (System.nanoTime() < spinUntil) {
            x += System.nanoTime() & 1;
        }
        long b = MachineCpu.busyNanos();
        assertTrue(a > 0 && b > a, "busy " + a + " -> " + b + " (" + x + ")");
    }
}
