package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.spi.verbs.IbvAccess;

/** Small engine parts on their own: {@link SourceCounts}, {@link PendingSends}, {@link Region}'s access flags. */
class EnginePartsTest {

    @Test
    void sourceCountsCapEachSourceAndGiveBack() throws Exception {
        InetAddress x = InetAddress.getByName("10.0.0.1");
        InetAddress y = InetAddress.getByName("10.0.0.2");
        SourceCounts c = new SourceCounts(2);
        assertEquals(0, c.of(x));
        assertTrue(c.reserve(x));
        assertEquals(1, c.of(x));
        assertTrue(c.reserve(x));
        assertFalse(c.reserve(x), "the cap is per source");
        assertEquals(2, c.of(x), "a refused reservation holds nothing");
        assertTrue(c.reserve(y), "another source has its own count");
        c.release(x);
        assertEquals(1, c.of(x));
        assertTrue(c.reserve(x));
        c.release(x);
        c.release(x);
        assertEquals(0, c.of(x));
        c.release(x); // nothing held: stays at zero
        assertEquals(0, c.of(x));
        assertTrue(c.reserve(x));
        assertEquals(1, c.of(y));
    }

    @Test
    void sourceCountsOfZeroRefuseEverything() throws Exception {
        SourceCounts c = new SourceCounts(0);
        assertFalse(c.reserve(InetAddress.getByName("10.0.0.1")));
        assertEquals(0, c.of(InetAddress.getByName("10.0.0.1")));
    }

    @Test
    void pendingSendsAreAFifoOfFixedCapacityThatWraps() {
        PendingSends p = new PendingSends(3);
        assertTrue(p.isEmpty());
        assertTrue(p.add(1, null, 10, 100));
        assertTrue(p.add(2, null, 20, 200));
        assertTrue(p.add(3, null, 30, 300));
        assertFalse(p.add(4, null, 40, 400), "full");
        assertFalse(p.isEmpty());
        assertEquals(1, p.headWrId());
        assertEquals(10, p.headOffset());
        assertEquals(100, p.headLength());
        assertNull(p.headRegion());
        p.removeHead();
        assertEquals(2, p.headWrId());
        assertTrue(p.add(4, null, 40, 400), "room again, at the start of the arrays");
        assertFalse(p.add(5, null, 50, 500));
        p.removeHead();
        assertEquals(3, p.headWrId());
        assertEquals(30, p.headOffset());
        assertEquals(300, p.headLength());
        p.removeHead();
        assertEquals(4, p.headWrId(), "wrapped");
        assertEquals(40, p.headOffset());
        assertEquals(400, p.headLength());
        assertFalse(p.isEmpty());
        p.removeHead();
        assertTrue(p.isEmpty());
    }

    @Test
    void regionAccessMapsToVerbsFlags() {
        assertEquals(0, Region.verbsAccess(Set.of()));
        assertEquals(IbvAccess.LOCAL_WRITE, Region.verbsAccess(EnumSet.of(Access.LOCAL_WRITE)));
        assertEquals(IbvAccess.REMOTE_WRITE | IbvAccess.LOCAL_WRITE, Region.verbsAccess(EnumSet.of(Access.REMOTE_WRITE)),
                "remote write needs local write");
        assertEquals(IbvAccess.REMOTE_READ, Region.verbsAccess(EnumSet.of(Access.REMOTE_READ)));
        assertEquals(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_READ,
                Region.verbsAccess(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ)));
        assertEquals(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ,
                Region.verbsAccess(EnumSet.allOf(Access.class)));
    }
}
