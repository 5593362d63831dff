package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * {@link PathMonitorLink} and the connector's {@link SharedCapacities} ({@link LinkRig}: paths
 * 10.0.1.(i+1) to 10.0.2.(i+1)): a new path is offered its pair's entry, a path that took it is not
 * probed by the accepting side, and the monitor's own measurements replace the entry.
 */
class PathMonitorLinkSharingTest {
    private static final long MS = 1_000_000L;
    private final VerbsProvider provider = (VerbsProvider) Proxy.newProxyInstance(VerbsProvider.class.getClassLoader(),
            new Class<?>[] {VerbsProvider.class}, (proxy, m, args) -> switch (m.getName()) {
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new AssertionError("unexpected " + m.getName());
            });
    private final SharedCapacities capacities = new SharedCapacities();
    private LinkRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new LinkRig();
        rig.shared = capacities.scope(provider, "dev");
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    private SharedCapacities.PathPair pair(int path) throws Exception {
        return new SharedCapacities.PathPair(provider, "dev", InetAddress.getByName("10.0.1." + (path + 1)),
                InetAddress.getByName("10.0.2." + (path + 1)), 0);
    }

    @Test
    void aNewPathIsOfferedItsPairsEntryOnly() throws Exception {
        long measured = System.nanoTime() - 5 * MS;
        capacities.record(pair(0), 3e8, measured);
        capacities.record(new SharedCapacities.PathPair(provider, "other", InetAddress.getByName("10.0.1.2"),
                InetAddress.getByName("10.0.2.2"), 0), 9e8, measured);
        rig.monitor.takeSeeds = true;
        PathMonitorLink l = rig.link(true, true, 2);
        assertEquals(1, rig.monitor.seeds.size(), "path 1's pair (another device) has no entry: " + rig.monitor.seeds);
        String[] offer = rig.monitor.seeds.get(0).split(" ");
        assertEquals("0", offer[0]);
        assertEquals(300_000_000L, Long.parseLong(offer[1]));
        assertTrue(Long.parseLong(offer[2]) >= 5 * MS, "its age: " + offer[2]);
        assertEquals(3e8, rig.table.probedCapacity(0), "the core's view has it too");
        assertEquals(0.0, rig.table.probedCapacity(1));
        assertEquals(1, l.capacitiesSeeded());
        assertTrue(l.describe().contains("capacitiesSeeded=1"), l.describe());
    }

    @Test
    void aRefusedOfferChangesNothing() throws Exception {
        capacities.record(pair(0), 3e8, System.nanoTime());
        PathMonitorLink l = rig.link(true, true, 1);
        assertEquals(1, rig.monitor.seeds.size());
        assertEquals(0.0, rig.table.probedCapacity(0));
        assertEquals(0, l.capacitiesSeeded());
    }

    @Test
    void theAcceptingSideAsksNoProbeOfAPathThatTookTheSharedCapacity() throws Exception {
        capacities.record(pair(0), 3e8, System.nanoTime());
        rig.monitor.takeSeeds = true;
        rig.monitor.paths = 2;
        PathMonitorLink l = rig.link(true, false, 2);
        l.onPeerProbesDone(ByteBuffer.allocate(0));
        l.tick(System.nanoTime());
        assertEquals(List.of("requestProbe 1"), rig.monitor.events.stream().filter(e -> e.startsWith("requestProbe"))
                .toList());
    }

    @Test
    void theMonitorsOwnMeasurementsReplaceTheEntry() throws Exception {
        PathMonitorLink l = rig.link(true, true, 1);
        rig.monitor.probes.add(new long[] {0, 1000});
        rig.monitor.probes.add(new long[] {0, 1000});
        assertEquals(2, l.probe());
        rig.monitor.capacity = 4e8;
        rig.monitor.measurements[0] = 1;
        l.tick(1_000 * MS);
        l.onProbeCompletion(LinkRig.wc(rig.posted.get(0).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(new SharedCapacities.Measurement(4e8, 1_000 * MS), capacities.find(pair(0)));

        // a completion that measured nothing new (same count) leaves it
        rig.monitor.capacity = 5e8;
        l.tick(2_000 * MS);
        l.onProbeCompletion(LinkRig.wc(rig.posted.get(1).wrId(), IbvWcStatus.SUCCESS));
        assertEquals(new SharedCapacities.Measurement(4e8, 1_000 * MS), capacities.find(pair(0)));
        assertEquals(1, capacities.size());
    }
}
