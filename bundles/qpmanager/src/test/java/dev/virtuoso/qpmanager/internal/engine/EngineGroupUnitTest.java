package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * {@link EngineGroup} without connections: arguments, sizes, the least-loaded assignment with its
 * rotating tie-break, and closing (agents stopped, threads gone). Short: no connection runs.
 */
class EngineGroupUnitTest {

    @Test
    void badSizesAndWindowsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new EngineGroup(0));
        assertThrows(IllegalArgumentException.class, () -> new EngineGroup(1, -1));
        int d = EngineGroup.defaultSize();
        assertTrue(d >= 1 && d <= 4, "default size " + d);
        assertEquals(Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 4)), d);
    }

    @Test
    void sizesWindowAndThreads() {
        try (EngineGroup g = new EngineGroup(2, 1234)) {
            assertEquals(2, g.size());
            assertEquals(1234, g.activeSpinNanos());
            List<Thread> threads = g.threads();
            assertEquals(2, threads.size());
            Set<String> names = new HashSet<>();
            for (Thread t : threads) {
                assertTrue(t.isDaemon(), t.getName());
                names.add(t.getName());
            }
            assertEquals(Set.of("virtuoso-engine-0", "virtuoso-engine-1"), names);
            assertFalse(g.isClosed());
            assertEquals(0, g.agentErrors());
            assertEquals(0, g.openDevices());
            assertEquals(0, g.completionEvents());
            assertEquals(0, g.wakeOverflows());
            assertEquals(0, g.duties(), "no connection: no duty cycle");
        }
        try (EngineGroup g = new EngineGroup(1)) {
            assertEquals(EngineGroup.DEFAULT_ACTIVE_SPIN_NANOS, g.activeSpinNanos());
        }
    }

    @Test
    void assignmentPicksTheLeastLoadedAgent() {
        try (EngineGroup g = new EngineGroup(3)) {
            EngineAgent a = g.assign();
            EngineAgent b = g.assign();
            EngineAgent c = g.assign();
            assertNotSame(a, b);
            assertNotSame(b, c);
            assertNotSame(a, c);
            assertArrayEquals(new int[] {1, 1, 1}, g.loads());
            b.unassign();
            assertEquals(b, g.assign(), "the one with the fewest connections");
            b.unassign();
            c.unassign();
            a.assign();
            // loads a=2, b=0, c=0: either of the two idle ones, never a
            EngineAgent next = g.assign();
            assertTrue(next == b || next == c, "agent " + next.index());
            EngineAgent then = g.assign();
            assertTrue((then == b || then == c) && then != next, "then the other idle one: " + then.index());
            assertArrayEquals(new int[] {2, 1, 1}, new int[] {a.load(), b.load(), c.load()});
        }
    }

    @Test
    void tiesRotateOverTheAgents() {
        try (EngineGroup g = new EngineGroup(3)) {
            Set<Integer> first = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                EngineAgent a = g.assign();
                first.add(a.index());
                a.unassign(); // all idle again: a tie every time
            }
            assertEquals(Set.of(0, 1, 2), first, "each tie starts at the next agent");
        }
    }

    @Test
    void closingStopsEveryAgentAndIsIdempotent() throws Exception {
        EngineGroup g = new EngineGroup(2);
        List<Thread> threads = g.threads();
        assertTrue(g.close(5000));
        assertTrue(g.isClosed());
        for (Thread t : threads) {
            assertFalse(t.isAlive(), t.getName());
        }
        assertEquals(List.of(), g.threads());
        assertTrue(g.close(5000), "closing again");
        assertEquals(0, g.agentErrors(), "stopping is not an agent error");
    }
}
