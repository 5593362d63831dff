package dev.virtuoso.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.verbs.soft.fabric.FabricNetwork;

/**
 * The idle engine's yielding phase ({@link SoftRnicConfig.Builder#yieldNanos}): after its spin an
 * idle device's thread keeps yielding (runnable) for the configured time instead of parking (on the
 * fabric wire a parked engine waits in {@code parkNanos}, timed-waiting); without it, it parks.
 */
class IdleYieldTest {
    private static Thread engineThread(String device) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("virtuoso-soft-" + device)).findFirst()
                .orElseThrow(() -> new AssertionError("no engine thread of " + device));
    }

    /** @return true if the thread was seen timed-waiting within {@code millis} */
    private static boolean seenParked(Thread t, long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - end < 0) {
            if (t.getState() == Thread.State.TIMED_WAITING) {
                return true;
            }
            Thread.sleep(1);
        }
        return false;
    }

    @Test
    void anIdleEngineYieldsForTheConfiguredTimeBeforeItParks() throws Exception {
        try (FabricNetwork net = new FabricNetwork("idle-yield", 3)) {
            net.addHost("yielding", "10.9.2.1");
            net.addHost("parking", "10.9.2.2");
            long yieldNanos = TimeUnit.SECONDS.toNanos(30);
            SoftRnicConfig yielding = SoftRnicConfig.builder("yielding").fabric(net, "yielding")
                    .yieldNanos(yieldNanos).build();
            assertEquals(yieldNanos, yielding.yieldNanos());
            try (SoftVerbsProvider provider = new SoftVerbsProvider(yielding,
                    SoftRnicConfig.builder("parking").fabric(net, "parking").build())) {
                provider.openDevice("yielding");
                provider.openDevice("parking");
                assertTrue(seenParked(engineThread("parking"), 5000), "without a yielding phase the idle engine parks");
                assertTrue(!seenParked(engineThread("yielding"), 300), "inside its yielding phase it never parks");
            }
        }
    }

    @Test
    void theDefaultIsNoYieldingAndNegativeMeansNone() {
        assertEquals(0, SoftRnicConfig.builder("d").build().yieldNanos());
        assertEquals(0, SoftRnicConfig.builder("d").yieldNanos(-5).build().yieldNanos());
    }
}
