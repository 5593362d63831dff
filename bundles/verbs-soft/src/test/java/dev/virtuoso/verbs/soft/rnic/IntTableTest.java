package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The copy-on-write int-keyed table behind QP, CQ and MR lookups. */
class IntTableTest {

    @Test
    void emptyHasNothingAndFourSlots() {
        IntTable<String> t = IntTable.empty();
        assertEquals(0, t.size());
        assertEquals(4, t.slots());
        assertNull(t.get(0));
        assertFalse(t.containsKey(7));
        assertTrue(t.values().isEmpty());
        assertSame(t, t.without(7), "removing a missing key keeps the table");
        assertThrows(IllegalArgumentException.class, () -> t.with(1, null));
    }

    @Test
    void withAndWithoutReturnNewTablesAndLeaveTheOldOnesAlone() {
        IntTable<String> empty = IntTable.empty();
        IntTable<String> one = empty.with(5, "five");
        assertEquals(1, one.size());
        assertEquals(4, one.slots(), "1 entry: 4 slots keep it at most half full");
        assertEquals("five", one.get(5));
        assertNull(empty.get(5));
        IntTable<String> replaced = one.with(5, "FIVE");
        assertEquals(1, replaced.size(), "replacing keeps the size");
        assertEquals("FIVE", replaced.get(5));
        assertEquals("five", one.get(5));
        IntTable<String> two = replaced.with(6, "six");
        assertEquals(2, two.size());
        assertEquals(8, two.slots(), "2 entries need more than 4 slots (2 * 2 + 2 = 6)");
        IntTable<String> back = two.without(5);
        assertEquals(1, back.size());
        assertNull(back.get(5));
        assertEquals("six", back.get(6));
        assertEquals(4, back.slots());
        assertEquals(2, two.size());
        assertEquals("FIVE", two.get(5));
    }

    @Test
    void manyKeysIncludingCollidingAndNegativeOnesAreAllFound() {
        IntTable<Integer> t = IntTable.empty();
        int[] keys = new int[200];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i % 2 == 0 ? i * 64 : -i;
            t = t.with(keys[i], i);
        }
        assertEquals(200, t.size());
        assertTrue(t.slots() >= 402, "at most half full");
        Set<Integer> seen = new HashSet<>();
        int occupied = 0;
        for (int s = 0; s < t.slots(); s++) {
            if (t.valueAt(s) != null) {
                occupied++;
            }
        }
        assertEquals(200, occupied);
        for (int i = 0; i < keys.length; i++) {
            assertEquals(i, t.get(keys[i]), "key " + keys[i]);
            seen.add(t.get(keys[i]));
        }
        assertEquals(200, seen.size());
        assertEquals(200, t.values().size());
        assertNull(t.get(1), "an absent key between present ones");
        for (int i = 0; i < keys.length; i += 2) {
            t = t.without(keys[i]);
        }
        assertEquals(100, t.size());
        for (int i = 0; i < keys.length; i++) {
            assertEquals(i % 2 == 0 ? null : (Integer) i, t.get(keys[i]));
        }
    }
}
