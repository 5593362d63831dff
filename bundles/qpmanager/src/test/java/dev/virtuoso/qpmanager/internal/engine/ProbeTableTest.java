package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import dev.virtuoso.util.WrId;

/** Probe slots: bounds, full table, wr_id round trip and stale completions. */
class ProbeTableTest {

    @Test
    void capacityIsBetweenOneAnd65536() {
        assertThrows(IllegalArgumentException.class, () -> new ProbeTable(0));
        assertThrows(IllegalArgumentException.class, () -> new ProbeTable(65537));
        assertEquals(1, new ProbeTable(1).capacity());
        assertEquals(65536, new ProbeTable(65536).capacity());
    }

    @Test
    void allocatesLowestSlotsFirstUntilFull() {
        ProbeTable t = new ProbeTable(2);
        assertEquals(0, t.inUse());
        int a = t.allocate(3, 4096, 100);
        int b = t.allocate(5, 8192, 200);
        assertEquals(0, a);
        assertEquals(1, b);
        assertEquals(2, t.inUse());
        assertEquals(-1, t.allocate(1, 1, 1), "full");
        assertEquals(3, t.path[a]);
        assertEquals(4096, t.bytes[a]);
        assertEquals(100, t.postedAt[a]);
        assertEquals(5, t.path[b]);
        assertEquals(8192, t.bytes[b]);
        assertEquals(200, t.postedAt[b]);
        t.release(a);
        assertFalse(t.inUse(a));
        assertTrue(t.inUse(b));
        assertEquals(1, t.inUse());
        t.release(a);
        assertEquals(1, t.inUse(), "a second release of the same slot changes nothing");
        assertEquals(a, t.allocate(7, 1, 1), "the released slot is reused");
        assertEquals(-1, t.allocate(1, 1, 1));
    }

    @Test
    void aWrIdFindsItsSlotOnlyWhileThatProbeHoldsIt() {
        ProbeTable t = new ProbeTable(4);
        int s = t.allocate(2, 64, 0);
        int other = t.allocate(2, 64, 0);
        long id = t.wrId(s);
        assertEquals(WrIdTags.PROBE, id & WrIdTags.PROBE, "tagged as a probe");
        assertEquals(s, t.slotOf(id));
        assertEquals(other, t.slotOf(t.wrId(other)));
        t.release(s);
        assertEquals(-1, t.slotOf(id), "released: stale");
        assertEquals(s, t.allocate(2, 64, 0));
        long again = t.wrId(s);
        assertNotEquals(id, again, "a new generation");
        assertEquals(-1, t.slotOf(id), "the old probe's completion is stale");
        assertEquals(s, t.slotOf(again));
        assertEquals(-1, t.slotOf(WrId.pack(WrIdTags.PROBE, 1, 3)), "slot 3 never allocated");
        assertEquals(-1, t.slotOf(WrId.pack(WrIdTags.PROBE, 1, 4)), "beyond the table");
    }
}
