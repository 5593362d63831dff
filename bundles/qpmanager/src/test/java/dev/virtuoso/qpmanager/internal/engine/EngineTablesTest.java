package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.qpmanager.internal.bootstrap.PeerLimits;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;

/** The engine's small tables and settings on their own: capacities, bounds and what they count. */
class EngineTablesTest {

    @Test
    void pendingSendsAreFifoBoundedAndWrapAround() {
        PendingSends q = new PendingSends(2);
        assertTrue(q.isEmpty());
        assertTrue(q.add(1, null, 10, 100));
        assertFalse(q.isEmpty());
        assertTrue(q.add(2, null, 20, 200));
        assertFalse(q.add(3, null, 30, 300), "full at its capacity");
        assertEquals(1, q.headWrId());
        assertEquals(10, q.headOffset());
        assertEquals(100, q.headLength());
        q.removeHead();
        assertTrue(q.add(3, null, 30, 300), "room again after a removal");
        assertEquals(2, q.headWrId());
        assertEquals(20, q.headOffset());
        q.removeHead();
        assertEquals(3, q.headWrId(), "wrapped around to the first entry");
        assertEquals(30, q.headOffset());
        assertEquals(300, q.headLength());
        q.removeHead();
        assertTrue(q.isEmpty());
    }

    @Test
    void pendingSendsForgetTheRegionOfARemovedEntry() {
        Region r = region(Set.of(Access.LOCAL_WRITE));
        PendingSends q = new PendingSends(1);
        q.add(5, r, 0, 1);
        assertSame(r, q.headRegion());
        q.removeHead();
        assertNull(q.headRegion(), "no reference kept to a sent region");
    }

    @Test
    void sourceCountsCapEachSourceAndGiveBack() throws Exception {
        InetAddress a = InetAddress.getByName("10.0.0.1");
        InetAddress b = InetAddress.getByName("10.0.0.2");
        SourceCounts c = new SourceCounts(2);
        assertEquals(0, c.of(a));
        assertTrue(c.reserve(a));
        assertTrue(c.reserve(a));
        assertFalse(c.reserve(a), "the third from one source is over the cap");
        assertEquals(2, c.of(a), "a refused reservation holds nothing");
        assertTrue(c.reserve(b), "other sources have their own count");
        c.release(a);
        assertEquals(1, c.of(a));
        assertTrue(c.reserve(a));
        c.release(a);
        c.release(a);
        assertEquals(0, c.of(a));
        c.release(a);
        assertEquals(0, c.of(a), "releasing more than was reserved never goes negative");
        assertTrue(c.reserve(a));
        assertEquals(1, c.of(a));
    }

    @Test
    void bootstrapLimitsRefuseEveryZeroAndKeepThePeerCaps() {
        new BootstrapLimits(1, 1, 1, 1, 1, 1, PeerLimits.DEFAULTS);
        int[][] zero = {{0, 1, 1, 1, 1, 1}, {1, 0, 1, 1, 1, 1}, {1, 1, 0, 1, 1, 1}, {1, 1, 1, 0, 1, 1},
            {1, 1, 1, 1, 0, 1}, {1, 1, 1, 1, 1, 0}};
        for (int[] z : zero) {
            assertThrows(IllegalArgumentException.class,
                    () -> new BootstrapLimits(z[0], z[1], z[2], z[3], z[4], z[5], PeerLimits.DEFAULTS),
                    java.util.Arrays.toString(z));
        }
        assertThrows(IllegalArgumentException.class, () -> new BootstrapLimits(1, 1, 1, 1, 1, 1, null));
        PeerLimits small = new PeerLimits(1, 1, 64, 0);
        BootstrapLimits l = BootstrapLimits.DEFAULTS.withPeer(small);
        assertEquals(new BootstrapLimits(1024, 32, 8, 10_000, 64, 256, small), l);
    }

    @Test
    void coreSettingsBounds() {
        new CoreSettings("soft", 1, 1, 1, 1, 2);
        new CoreSettings("soft", 1, ConnectOptions.MAX_PATHS, 1, 1, 2);
        assertThrows(IllegalArgumentException.class, () -> new CoreSettings("soft", 0, 1, 1, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> new CoreSettings("soft", 1, 0, 1, 1, 2));
        assertThrows(IllegalArgumentException.class,
                () -> new CoreSettings("soft", 1, ConnectOptions.MAX_PATHS + 1, 1, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> new CoreSettings("soft", 1, 1, 0, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> new CoreSettings("soft", 1, 1, 1, 0, 2));
        assertThrows(IllegalArgumentException.class, () -> new CoreSettings("soft", 1, 1, 1, 5, 5),
                "liveness must be longer than the heartbeat");
    }

    @Test
    void regionAccessMapsToVerbsFlags() {
        assertEquals(0, Region.verbsAccess(Set.of()));
        assertEquals(IbvAccess.LOCAL_WRITE, Region.verbsAccess(Set.of(Access.LOCAL_WRITE)));
        assertEquals(IbvAccess.REMOTE_WRITE | IbvAccess.LOCAL_WRITE, Region.verbsAccess(Set.of(Access.REMOTE_WRITE)),
                "remote write needs local write");
        assertEquals(IbvAccess.REMOTE_READ, Region.verbsAccess(Set.of(Access.REMOTE_READ)));
        assertEquals(IbvAccess.REMOTE_READ | IbvAccess.LOCAL_WRITE,
                Region.verbsAccess(Set.of(Access.REMOTE_READ, Access.LOCAL_WRITE)));
    }

    @Test
    void aRegionAllowsWhatItWasRegisteredFor() {
        Region remoteWrite = region(Set.of(Access.REMOTE_WRITE));
        assertTrue(remoteWrite.can(Access.REMOTE_WRITE));
        assertTrue(remoteWrite.can(Access.LOCAL_WRITE), "implied by remote write");
        assertFalse(remoteWrite.can(Access.REMOTE_READ));
        Region read = region(Set.of(Access.REMOTE_READ));
        assertTrue(read.can(Access.REMOTE_READ));
        assertFalse(read.can(Access.LOCAL_WRITE));
        assertEquals(EnumSet.of(Access.REMOTE_READ), read.access());
        assertThrows(UnsupportedOperationException.class, () -> read.access().add(Access.LOCAL_WRITE));
        assertEquals(new RemoteMemory(0x4000, 77, 256), read.remote());
        assertEquals(256, read.length());
        assertEquals(256, read.buffer().capacity());
        assertFalse(read.closed());
    }

    /** A region over a fake memory registration; never closed, so it needs no connection. */
    private static Region region(Set<Access> access) {
        ByteBuffer memory = ByteBuffer.allocateDirect(256);
        IbvMr mr = new IbvMr() {
            @Override
            public long address() {
                return 0x4000;
            }

            @Override
            public int length() {
                return 256;
            }

            @Override
            public int lkey() {
                return 76;
            }

            @Override
            public int rkey() {
                return 77;
            }

            @Override
            public int access() {
                return Region.verbsAccess(access);
            }

            @Override
            public ByteBuffer buffer() {
                return memory;
            }

            @Override
            public void close() {
                throw new AssertionError("not closed here");
            }
        };
        return new Region(null, mr, access);
    }
}
