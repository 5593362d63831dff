package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class MemoryRegionTest {
    private final MrTable table = new MrTable();

    private SoftMr region(int size) {
        return table.register(null, ByteBuffer.allocateDirect(size), 7);
    }

    @Test
    void boundsCheckAcceptsExactlyTheRegion() {
        SoftMr mr = region(4096);
        long a = mr.address;
        assertEquals(0, mr.offsetOf(a, 4096));
        assertEquals(4095, mr.offsetOf(a + 4095, 1));
        assertEquals(4096, mr.offsetOf(a + 4096, 0), "empty range at the end");
        assertEquals(-1, mr.offsetOf(a + 4096, 1));
        assertEquals(-1, mr.offsetOf(a - 1, 1));
        assertEquals(-1, mr.offsetOf(a, 4097));
        assertEquals(-1, mr.offsetOf(a + 1, 4096));
        assertEquals(-1, mr.offsetOf(a, -1));
        assertEquals(-1, mr.offsetOf(a, 0xFFFFFFFFL), "unsigned DMA length from the wire");
        assertEquals(-1, mr.offsetOf(Long.MIN_VALUE, 1));
        assertEquals(-1, mr.offsetOf(Long.MAX_VALUE, 1));
        assertEquals(-1, mr.offsetOf(a + 1, Long.MAX_VALUE));
    }

    @Test
    void addressesArePageAlignedAndKeysUniqueAndRandom() {
        Set<Integer> lkeys = new HashSet<>();
        Set<Integer> rkeys = new HashSet<>();
        SoftMr prev = null;
        for (int i = 0; i < 200; i++) {
            SoftMr mr = region(100);
            assertEquals(0, mr.address & 4095);
            assertTrue(mr.address >= 1L << 32);
            assertTrue(lkeys.add(mr.lkey));
            assertTrue(rkeys.add(mr.rkey));
            assertSame(mr, table.byRkey(mr.rkey));
            assertSame(mr, table.byLkey(mr.lkey));
            assertSame(mr, table.byAddress(mr.address + 50, 50));
            if (prev != null) {
                assertNotEquals(prev.rkey + 1, mr.rkey, "sequential rkeys are predictable");
            }
            prev = mr;
        }
    }

    @Test
    void deregisteredKeysStopResolving() {
        SoftMr mr = region(64);
        assertTrue(table.deregister(mr));
        assertNull(table.byRkey(mr.rkey));
        assertNull(table.byLkey(mr.lkey));
        assertNull(table.byAddress(mr.address, 1));
        assertTrue(!mr.valid);
        assertTrue(!table.deregister(mr), "idempotent");
    }

    @Test
    void aNewRangeMustStayAGuardPageAwayFromEveryRegion() {
        SoftMr big = region(1 << 20);
        SoftMr small = region(100);
        for (SoftMr mr : new SoftMr[] {big, small}) {
            long end = mr.address + mr.length;
            assertTrue(table.overlaps(mr.address, 1), "its first byte");
            assertTrue(table.overlaps(end - 1, 1), "its last byte");
            assertTrue(table.overlaps(mr.address - 8192, 8192), "ending right before it: no guard page");
            assertTrue(table.overlaps(end + 4095, 4096), "starting in the guard page after it");
            assertTrue(table.overlaps(mr.address - 4096, 1 << 22), "spanning it");
            assertTrue(!table.overlaps(mr.address - 4096 - 8192, 8192), "a guard page before it");
            assertTrue(!table.overlaps(end + 4096, 4096), "a guard page after it");
        }
        assertTrue(table.deregister(big));
        assertTrue(!table.overlaps(big.address, 1 << 20), "a deregistered region frees its addresses");
    }
}
