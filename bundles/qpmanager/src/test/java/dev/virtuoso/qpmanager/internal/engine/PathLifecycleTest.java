package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;
import dev.virtuoso.decomposer.PathTable;

class PathLifecycleTest {
    private final PathTable table = new PathTable(4);
    private final PathLifecycle life = new PathLifecycle(table);
    private final List<String> told = new ArrayList<>();

    PathLifecycleTest() {
        life.listener(new PathEvents() {
            @Override
            public void pathAdded(int path) {
                told.add("added " + path);
            }

            @Override
            public void pathState(int path, PathState state) {
                told.add(path + " " + state);
            }

            @Override
            public void pathAbandoned(int path) {
                told.add("abandoned " + path);
            }
        });
    }

    @Test
    void aPathFailsOnceAndIsRepaired() {
        int p = table.add();
        assertEquals(PathState.UP, life.state(p));
        assertTrue(life.fail(p));
        assertEquals(PathState.RECOVERING, table.state(p));
        assertFalse(life.fail(p), "already failed: the second report changes nothing");
        life.repaired(p);
        assertEquals(PathState.UP, table.state(p));
        assertEquals(List.of("0 RECOVERING", "0 UP"), told);
    }

    @Test
    void removalFromUpOrRecoveringAndNothingAfter() {
        int a = table.add();
        int b = table.add();
        life.fail(b);
        life.remove(a);
        life.remove(b);
        assertEquals(PathState.DOWN, table.state(a));
        assertEquals(PathState.DOWN, table.state(b));
        assertFalse(life.fail(a), "a removed path does not fail");
        assertThrows(IllegalStateException.class, () -> life.repaired(a));
        assertThrows(IllegalStateException.class, () -> life.remove(a));
        assertEquals(List.of("1 RECOVERING", "0 DOWN", "1 DOWN"), told);
    }

    @Test
    void onlyAFailedPathIsRepaired() {
        int p = table.add();
        assertThrows(IllegalStateException.class, () -> life.repaired(p));
        assertEquals(PathState.UP, table.state(p));
        assertTrue(told.isEmpty());
    }

    @Test
    void closingTakesEveryPathDownSilently() {
        int a = table.add();
        int b = table.add();
        life.fail(b);
        told.clear();
        life.closeAll();
        assertEquals(PathState.DOWN, table.state(a));
        assertEquals(PathState.DOWN, table.state(b));
        assertTrue(told.isEmpty());
    }
}
