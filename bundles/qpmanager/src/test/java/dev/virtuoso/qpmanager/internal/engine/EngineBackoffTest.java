package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;


/**
 * The engine agents' backoff window: data-path work keeps a connection running (polled, its agent
 * spinning) for a bounded time, so a request-response exchange does not park and wake the agent
 * per message; after the window the connection goes quiet and the agent parks as before; control
 * traffic (heartbeats) does not open the window. Behaviour only: speed is the latency bench's.
 */
class EngineBackoffTest {
    private static final CoreSettings NO_HEARTBEAT = Fabric.NO_HEARTBEAT;
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(2);

    private static Pair open(Fabric f) throws Exception {
        return new Pair(f.connect(Fabric.options(), Fabric.options()), 64 * 1024);
    }

    @Test
    void dataWorkKeepsTheConnectionRunningForTheWindowThenItGoesQuiet() throws Exception {
        EngineGroup engines = new EngineGroup(1, WINDOW_NANOS);
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = open(f);
            p.write(4096);
            long t0 = System.nanoTime();
            long parks0 = engines.parks();
            long d0 = engines.duties();
            Thread.sleep(300);
            long d1 = engines.duties();
            long parks1 = engines.parks();
            assertTrue(System.nanoTime() - t0 < WINDOW_NANOS, "still inside the window (the test thread was late)");
            assertTrue(d1 > d0, "the connection is polled inside the window: " + (d1 - d0) + " duty cycles");
            assertEquals(parks0, parks1, "the agent does not park inside the window");
            // after the window: quiet, the agent parked, no duty cycle at all
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(WINDOW_NANOS) + 500);
            long d2 = engines.duties();
            Thread.sleep(500);
            assertEquals(d2, engines.duties(), "a quiet connection is not run after the window");
            assertTrue(engines.parks() > parks1, "the agent parks once the window is over");
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void requestResponseInsideTheWindowDoesNotParkTheAgent() throws Exception {
        EngineGroup engines = new EngineGroup(1, WINDOW_NANOS);
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = open(f);
            p.write(64);
            long parks = engines.parks();
            long events = engines.completionEvents();
            int messages = 200;
            for (int i = 0; i < messages; i++) {
                p.write(64);
                p.sendAll(64);
            }
            long parked = engines.parks() - parks;
            System.out.printf("agent parks over %d request-response exchanges with a 2 s window: %d%n", 2 * messages,
                    parked);
            assertTrue(parked <= 2, "the agent spun between exchanges, parked " + parked + " times");
            long handedOn = engines.completionEvents() - events;
            assertTrue(handedOn <= 2, "completions polled by the agent, " + handedOn + " came as events");
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void withoutAWindowTheConnectionGoesQuietAtOnce() throws Exception {
        EngineGroup engines = new EngineGroup(1, 0L);
        // 20 ms each way: the connection is quiet (CQ armed) long before a completion can arrive
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0 delay=20ms")) {
            Pair p = open(f);
            p.write(4096);
            Thread.sleep(300);
            long events = engines.completionEvents();
            long parked = engines.parks();
            p.write(64);
            // the agent's 1 ms timer may poll the completion before the event thread hands the event on
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (engines.completionEvents() == events && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(engines.completionEvents() > events, "the completion came as a CQ event");
            assertTrue(engines.parks() > parked, "the agent parked while the write was in flight");
            Thread.sleep(300);
            long d = engines.duties();
            long parks = engines.parks();
            Thread.sleep(500);
            assertEquals(d, engines.duties(), "quiet a few idle cycles after the last work");
            assertTrue(engines.parks() - parks <= 1, "parked, at most one timer wake-up (1 s) in 500 ms");
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void heartbeatsDoNotOpenTheWindow() throws Exception {
        // as IdleCostTest, with a window far longer than a duty cycle: if a PING opened it, each wake
        // would run for the whole window (hundreds of thousands of cycles) instead of the quiet countdown
        long window = TimeUnit.MILLISECONDS.toNanos(500);
        EngineGroup engines = new EngineGroup(1, window);
        try (Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=0")) {
            Pair p = open(f);
            p.write(4096);
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(window) + 500);
            long before = engines.duties();
            long t0 = System.nanoTime();
            Thread.sleep(3 * CoreSettings.DEFAULTS.heartbeatMillis());
            long idle = engines.duties() - before;
            long elapsed = System.nanoTime() - t0;
            long wakesPerEnd = elapsed / TimeUnit.MILLISECONDS.toNanos(CoreSettings.DEFAULTS.heartbeatMillis()) + 2;
            long bound = 2L * wakesPerEnd * (EngineAgent.QUIET_AFTER_CYCLES + 2);
            assertTrue(idle <= bound, "heartbeats ran " + idle + " duty cycles, more than their wakes explain (" + bound
                    + ")");
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void aNegativeWindowIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new EngineGroup(1, -1L));
    }
}
