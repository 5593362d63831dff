package dev.virtuoso.policy.cc.chunkprobe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.policy.testkit.FakePaths;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.PolicyContext;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * The probe driving a real transport: RDMA WRITEs of the session's chunk size, one in flight, from
 * a soft RNIC to another over one in-process fabric link, with retry_cnt 0 so that a WR whose burst
 * overflows the link's queue ends in RETRY_EXC_ERR (its QP pair is then re-created, as the core
 * repairs a path). The link turns from shallow (32 KiB queue) to deep (16 MiB, no drops) and back:
 * the chunk size must shrink, grow back and shrink again. Assertions are on sizes and their
 * direction only (the soft RNIC sends far faster than the link's 100 Mbit/s even on a loaded
 * machine, so a 128 KiB burst always overflows the shallow queue and nothing overflows the deep one).
 */
class ChunkProbeFabricTest {
    private static final long KIB = 1024;
    private static final String SHALLOW = "rate=100m queue=32k";
    private static final String DEEP = "rate=100m queue=16m";
    private static final int BUFFER = 4 << 20;

    private FabricNetwork network;
    private FabricLink link;
    private SoftVerbsProvider provider;
    private Rig rig;
    private Mem src;
    private Mem dst;
    private QpPair qps;
    private final QpSettings settings = new QpSettings().retryCnt(0).timeout(14);
    private ChunkProbeSession cc;
    private long wrId;

    @BeforeEach
    void setUp() throws Exception {
        network = new FabricNetwork("chunkprobe", 7);
        network.addHost("a", "10.0.0.1");
        network.addHost("b", "10.0.0.2");
        link = network.link("a", "b", LinkSpec.parse(SHALLOW));
        provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").fabric(network, "a").windowPackets(1024).build(),
                SoftRnicConfig.builder("b").fabric(network, "b").windowPackets(1024).build());
        rig = new Rig(ConformanceEnvironment.of("soft/fabric/chunkprobe", () -> provider.openDevice("a"),
                () -> provider.openDevice("b")), 1);
        src = rig.mem(rig.pdA, BUFFER, IbvAccess.LOCAL_WRITE);
        dst = rig.mem(rig.pdB, BUFFER, IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE);
        qps = rig.connect(settings);
        cc = (ChunkProbeSession) new ChunkProbePolicy().newSession(new PolicyContext("fabric",
                Map.of("cc-chunkprobe.levelChunks", 2, "cc-chunkprobe.levelBytes", 1, "cc-chunkprobe.window", 1,
                        "cc-chunkprobe.initialChunkBytes", 64 * KIB,
                        "cc-chunkprobe.reprobeAfterChunks", 4, "cc-chunkprobe.maxChunkBytes", (long) BUFFER)),
                new FakePaths(1));
    }

    @AfterEach
    void tearDown() {
        if (rig != null) {
            rig.close();
        }
        provider.close();
        network.close();
    }

    /** Posts one chunk of the session's size, waits for its completion and reports it. */
    private long chunk() throws Exception {
        int size = (int) cc.maxChunkBytes(0);
        long posted = System.nanoTime();
        qps.a().postSend(Rig.wr(++wrId, IbvWrOpcode.RDMA_WRITE, src, 0, size, dst, 0));
        List<IbvWc> wc = Rig.expect(rig.cqA, 1);
        IbvWcStatus st = wc.get(0).status();
        ChunkOutcome outcome = st == IbvWcStatus.SUCCESS ? ChunkOutcome.SUCCESS
                : st == IbvWcStatus.RETRY_EXC_ERR ? ChunkOutcome.RETRY_EXCEEDED : ChunkOutcome.ERROR;
        cc.onChunkComplete(0, size, System.nanoTime() - posted, outcome);
        if (st != IbvWcStatus.SUCCESS) {
            qps = rig.connect(settings); // the failed QP is in ERR: a new pair, as the core repairs a path
        }
        return size;
    }

    /**
     * Runs chunks until the size reaches (grow) or falls to (shrink) {@code target}, at most
     * {@code limit} chunks (re-probes wait up to {@value ChunkProbeSession#MAX_REPROBE_BACKOFF} x 4 chunks).
     *
     * @return the largest size posted
     */
    private long runUntil(boolean grow, long target, int limit) throws Exception {
        long max = 0;
        for (int i = 0; i < limit; i++) {
            long size = cc.maxChunkBytes(0);
            max = Math.max(max, size);
            if (grow ? size >= target : size <= target) {
                break;
            }
            chunk();
        }
        return max;
    }

    private long losses() {
        return cc.statistics().get(0).losses();
    }

    @Test
    void theChunkShrinksOnAShallowQueueGrowsBackWhenItDeepensAndShrinksAgain() throws Exception {
        for (int i = 0; i < 40; i++) {
            chunk();
        }
        long lossesShallow = losses();
        assertTrue(lossesShallow >= 1, "the 128 KiB bursts overflowed the 32 KiB queue");
        assertTrue(cc.maxChunkBytes(0) <= 64 * KIB, "settled at most at the initial 64 KiB: " + cc.statistics());

        link.configure(LinkSpec.parse(DEEP));
        long grown = runUntil(true, 1024 * KIB, 600);
        assertTrue(grown >= 1024 * KIB, "re-probing found the deep queue and the size grew back to >= 1 MiB, "
                + "largest " + grown + ": " + cc.statistics());
        assertEquals(lossesShallow, losses(), "no loss on the deep queue");

        link.configure(LinkSpec.parse(SHALLOW));
        runUntil(false, 64 * KIB, 200);
        assertTrue(losses() > lossesShallow, "the large chunks failed on the shallow queue again");
        assertTrue(cc.maxChunkBytes(0) <= 64 * KIB, "and the size shrank back: " + cc.statistics());
    }
}
