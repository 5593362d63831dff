package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.spi.verbs.IbvQp;

/** A path's QPs are released exactly once, with their receive slots, repair QP included. */
class PathSlotTest {
    private final List<String> calls = new ArrayList<>();

    /** A QP that records close() and answers qpNum(); nothing else is called here. */
    private IbvQp qp(int qpn) {
        return (IbvQp) Proxy.newProxyInstance(IbvQp.class.getClassLoader(), new Class<?>[] {IbvQp.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "qpNum" -> qpn;
                    case "close" -> {
                        calls.add("close " + qpn);
                        yield null;
                    }
                    case "toString" -> "qp " + qpn;
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    private final Reassembly receives = (Reassembly) Proxy.newProxyInstance(Reassembly.class.getClassLoader(),
            new Class<?>[] {Reassembly.class}, (proxy, m, args) -> {
                if (m.getName().equals("detachQp")) {
                    calls.add("detach " + ((IbvQp) args[0]).qpNum());
                    return null;
                }
                throw new AssertionError("unexpected " + m.getName());
            });

    private PathSlot slot() throws Exception {
        return new PathSlot(InetAddress.getByName("10.0.1.1"), InetAddress.getByName("10.0.2.1"), 0, qp(0x11), 5, 64,
                receives);
    }

    @Test
    void destroyReleasesTheQpAndItsSlotsOnce() throws Exception {
        PathSlot s = slot();
        s.destroy();
        assertTrue(s.destroyed);
        assertEquals(List.of("close 17", "detach 17"), calls);
        s.destroy();
        assertEquals(2, calls.size(), "a second destroy does nothing");
    }

    @Test
    void destroyAlsoReleasesAPendingRepairQp() throws Exception {
        PathSlot s = slot();
        s.repairQp = qp(0x22);
        s.repairRequest = 9;
        s.destroy();
        assertEquals(List.of("close 17", "detach 17", "close 34", "detach 34"), calls);
        assertNull(s.repairQp);
        assertEquals(0, s.repairRequest);
    }

    @Test
    void droppingARepairWithoutAQpOnlyForgetsTheRequest() throws Exception {
        PathSlot s = slot();
        s.repairRequest = 4;
        s.dropRepair();
        assertEquals(0, s.repairRequest);
        assertEquals(List.of(), calls);
        s.repairQp = qp(0x22);
        s.dropRepair();
        assertEquals(List.of("close 34", "detach 34"), calls);
        assertNull(s.repairQp);
    }

    @Test
    void aNewSlotHasNoIdYetAndTheMinimumRepairDelay() throws Exception {
        PathSlot s = slot();
        assertEquals(-1, s.id);
        assertEquals(PathManager.MIN_REPAIR_DELAY_NANOS, s.repairDelayNanos);
        s.id = 3;
        s.remoteQpn = 0xab;
        assertEquals("path 3 10.0.1.1->10.0.2.1 qpn 11/ab", s.toString());
    }
}
