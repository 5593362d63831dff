package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.IbvAccess;

/** {@link Setup}'s sizes and address choices, and its path limits seen through a handshake. */
class SetupTest {

    private static CoreSettings maxPaths(int n) {
        CoreSettings d = CoreSettings.DEFAULTS;
        return new CoreSettings(d.defaultProvider(), d.sendQueueDepth(), n, d.builtinChunksPerPath(),
                d.heartbeatMillis(), d.livenessMillis());
    }

    @Test
    void slotBytesAreTheConfiguredSizeAtMostTheSplitThresholdAndAtLeast64Bytes() {
        assertEquals(16 * 1024, Setup.slotBytes(ConnectOptions.builder().build()), "default");
        assertEquals(64, Setup.slotBytes(ConnectOptions.builder().splitThreshold(0).build()));
        assertEquals(64, Setup.slotBytes(ConnectOptions.builder().splitThreshold(63).build()));
        assertEquals(65, Setup.slotBytes(ConnectOptions.builder().splitThreshold(65).build()));
        assertEquals(8192, Setup.slotBytes(ConnectOptions.builder().smallMessageSlotBytes(8192).build()));
        assertEquals(64 * 1024, Setup.slotBytes(ConnectOptions.builder().smallMessageSlotBytes(1 << 20).build()),
                "the split threshold bounds it");
        assertEquals(ReassemblyConfig.MAX_SLOT_BYTES, Setup.slotBytes(ConnectOptions.builder()
                .smallMessageSlotBytes(ReassemblyConfig.MAX_SLOT_BYTES).splitThreshold(Integer.MAX_VALUE).build()));
    }

    @Test
    void slotSizesOutsideTheirRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ConnectOptions.builder().smallMessageSlotBytes(63));
        assertThrows(IllegalArgumentException.class,
                () -> ConnectOptions.builder().smallMessageSlotBytes(ReassemblyConfig.MAX_SLOT_BYTES + 1));
        assertEquals(ReassemblyConfig.MIN_SLOT_BYTES, ConnectOptions.MIN_SLOT_BYTES);
        assertEquals(ReassemblyConfig.MAX_SLOT_BYTES, ConnectOptions.MAX_SLOT_BYTES);
    }

    @Test
    void localAddressesAreTheVnicsOrTheSubsetTheOptionsName() throws Exception {
        List<InetAddress> vnics = List.of(Fabric.ip("10.0.1.1"), Fabric.ip("10.0.1.2"));
        assertEquals(vnics, Setup.localAddresses(vnics, ConnectOptions.builder().build()));
        assertEquals(List.of(Fabric.ip("10.0.1.2")),
                Setup.localAddresses(vnics, ConnectOptions.builder().localAddresses(Fabric.ip("10.0.1.2")).build()));
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> Setup.localAddresses(vnics,
                ConnectOptions.builder().localAddresses(Fabric.ip("10.0.1.2"), Fabric.ip("10.0.1.3")).build()));
        assertEquals(Reason.NO_PATH, e.reason());
        assertEquals("/10.0.1.3 is not a vNIC of the device (" + vnics + ")", e.getMessage());
    }

    @Test
    void noMoreThanMaxPathsAddressesArePairedIntoPaths() throws Exception {
        try (Fabric f = new Fabric(maxPaths(2), "rate=0", "rate=0", "rate=0")) {
            MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
            assertEquals(2, cs[0].pathStats().size());
            assertEquals(2, cs[1].pathStats().size());
            cs[0].close();
            cs[1].close();
        }
        try (Fabric f = new Fabric(maxPaths(3), "rate=0", "rate=0", "rate=0")) {
            MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
            assertEquals(3, cs[0].pathStats().size(), "exactly maxPaths addresses are all used");
            cs[0].close();
            cs[1].close();
        }
    }

    @Test
    void theServersMaxPathsLimitsTheAddressesItAdvertises() throws Exception {
        try (Fabric f = new Fabric(maxPaths(3), "rate=0", "rate=0", "rate=0");
                Connector narrow = new Connector(name -> f.provider, new DecomposerComponent(),
                        new ReassemblerComponent(), f.policies, maxPaths(2))) {
            Listener l = (Listener) narrow.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Fabric.options().device("b").build());
            MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
            MultipathConnection s = l.accept(10, TimeUnit.SECONDS);
            assertNotNull(s);
            assertEquals(2, s.pathStats().size());
            assertEquals(2, c.pathStats().size());
            c.close();
            s.close();
            l.close();
        }
    }

    @Test
    void eachSideAdvertisesItsProbeScratchRegion() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            MultipathListener l = f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Fabric.options().device("b").build());
            RecordingMonitors monitors = new RecordingMonitors();
            long[] scratch = new long[1];
            f.connector.pathMonitors((id, props, bytes) -> {
                scratch[0] = bytes;
                return monitors.newMonitor(id, props, bytes);
            });
            MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
            MultipathConnection s = l.accept(10, TimeUnit.SECONDS);
            assertEquals(Setup.PROBE_SCRATCH_BYTES, scratch[0], "the peer's scratch region is as large as registered");
            c.close();
            s.close();
            l.close();
        }
    }

    @Test
    void probeMemoryIsTheAgentsAndItsSourceIsNeitherWritableNorTheAdvertisedTarget() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            EngineAgent agent = new EngineAgent(0, 16, 0);
            ConnectOptions o = Fabric.options().device("a").build();
            Setup one = new Setup("c1", o, CoreSettings.DEFAULTS, f.provider, new ReassemblerComponent(), null, agent,
                    null, null);
            Setup two = new Setup("c2", o, CoreSettings.DEFAULTS, f.provider, new ReassemblerComponent(), null, agent,
                    null, null);
            agent.assign();
            agent.assign();
            try {
                one.open();
                two.open();
                for (Setup s : List.of(one, two)) {
                    assertEquals(0, s.probeSource.access() & (IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE),
                            "nothing may write the probes' source");
                    assertEquals(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE, s.probeTarget.access());
                    assertEquals(Setup.PROBE_SCRATCH_BYTES, s.probeSource.length());
                    assertEquals(Setup.PROBE_SCRATCH_BYTES, s.probeTarget.length());
                    assertEquals(s.probeTarget.rkey(), s.params().scratch().rkey(), "the target is advertised");
                    assertEquals(s.probeTarget.address(), s.params().scratch().address());
                    assertNotEquals(s.probeSource.rkey(), s.params().scratch().rkey());
                }
                // one connection's peer writes into its target: the other connection's target is the same
                // memory, neither source sees it
                one.probeTarget.buffer().put(100, (byte) 0x5a);
                assertEquals(0x5a, two.probeTarget.buffer().get(100), "one target for the agent's connections");
                assertEquals(0, one.probeSource.buffer().get(100));
                assertEquals(0, two.probeSource.buffer().get(100));
                two.probeSource.buffer().put(7, (byte) 1); // a local bug, not a peer: still shared memory
                assertEquals(1, one.probeSource.buffer().get(7), "one source for the agent's connections");
                assertTrue(one.probeTarget.buffer().get(7) == 0);
            } finally {
                one.close();
                two.close();
            }
            assertEquals(0, agent.openDevices(), "the device (and its probe memory) went with the last connection");
        }
    }
}
