package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.FabricPort;
import dev.virtuoso.verbs.soft.fabric.FabricWire;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;
import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.RcOpcode;

/**
 * The path check on the in-process fabric: a third host forges a WRITE at B's live QPN and
 * expected PSN, with the live rkey and a correct ICRC; B drops and counts it, and A's real WRITE at
 * that PSN then lands.
 */
class FabricPathCheckTest {
    private static final int ALL = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE
            | IbvAccess.REMOTE_READ;

    private FabricNetwork network;
    private SoftVerbsProvider provider;
    private Rig rig;

    @BeforeEach
    void setUp() throws Exception {
        network = new FabricNetwork("path-check", 3);
        network.addHost("a", "10.0.0.1");
        network.addHost("b", "10.0.0.2");
        network.addHost("m", "10.0.0.3");
        network.link("a", "b", LinkSpec.UNLIMITED);
        network.link("m", "b", LinkSpec.UNLIMITED);
        provider = new SoftVerbsProvider(SoftRnicConfig.builder("a").fabric(network, "a").build(),
                SoftRnicConfig.builder("b").fabric(network, "b").build());
        rig = new Rig(new TwoHostEnvironment("soft/fabric-three-hosts", provider, null), 9);
    }

    @AfterEach
    void tearDown() {
        if (rig != null) {
            rig.close();
        }
        provider.close();
        network.close();
    }

    @Test
    void aForgedWriteFromAnotherHostIsDroppedAndCounted() throws Exception {
        QpPair p = rig.connect(new QpSettings().psns(500, 900));
        Mem src = rig.mem(rig.pdA, 64, ALL).fill((byte) 7);
        Mem dst = rig.mem(rig.pdB, 64, ALL);
        FabricWire wireM = network.wire("m");
        try (FabricPort m = wireM.open(InetAddress.getByAddress(new byte[] {10, 0, 0, 3}), 4791)) {
            PacketBuilder pb = new PacketBuilder();
            pb.begin(RcOpcode.WRITE_ONLY, false, p.b().qpNum(), true, 500, 64)
                    .reth(dst.addr(0), dst.mr().rkey(), 64);
            for (int i = 0; i < 64; i++) {
                pb.buffer().put(pb.payloadOffset() + i, (byte) 0x66);
            }
            InetSocketAddress b = new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 0, 2}),
                    rig.b.udpPort());
            ByteBuffer d = pb.finish(new Icrc(), new byte[] {10, 0, 0, 3}, new byte[] {10, 0, 0, 2},
                    4791, b.getPort());
            assertTrue(m.send(d, b));
            long end = System.nanoTime() + 5_000_000_000L;
            while (p.b().counters().get(VerbsCounter.DROP_BAD_SOURCE) == 0 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
        } finally {
            wireM.close();
        }
        assertEquals(1, p.b().counters().get(VerbsCounter.DROP_BAD_SOURCE));
        assertEquals(1, rig.b.counters().get(VerbsCounter.DROP_BAD_SOURCE));
        assertTrue(dst.all(0, 64, (byte) 0), "the forged WRITE landed");
        p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 64, dst, 0));
        assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
        assertEquals(-1, dst.mismatch(0, src, 0, 64));
        assertEquals(0, p.b().counters().get(VerbsCounter.DUPLICATE_REQUESTS));
    }
}
