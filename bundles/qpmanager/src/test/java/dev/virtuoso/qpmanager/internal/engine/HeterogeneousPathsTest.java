package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;

/**
 * Paths of very different delay (1 ms vs 20 ms) and rate (10x skew), two of them reordering
 * packets: nothing is ordered across QPs, so any ordering mistake in the reassembly shows.
 */
class HeterogeneousPathsTest {
    private static Fabric fabric;
    private static Pair p;

    @BeforeAll
    static void connect() throws Exception {
        fabric = new Fabric("rate=100m delay=1ms", "rate=1g delay=20ms reorder=0.05",
                "rate=1g delay=1ms reorder=0.1 reorder-delay=500us", "rate=100m delay=20ms");
        var o = Fabric.options().chunkSize(256 * 1024).maxOutstanding(512);
        p = new Pair(fabric.connect(o, Fabric.options().maxOutstanding(512)), 16 << 20);
    }

    @AfterAll
    static void close() {
        fabric.close();
    }

    @Test
    void writeAndReadEveryByte() throws Exception {
        MpCompletion w = p.write(12 << 20);
        assertEquals(4, w.paths());
        p.read(12 << 20);
        p.write(100_000);
        p.read(3);
    }

    @Test
    void receiveCompletionsFollowSendOrderAcrossMixedSizes() throws Exception {
        for (int round = 0; round < 3; round++) {
            List<MpCompletion> r = p.sendAll(300_000, 10, 1_000_000, 50, 70_000, 3, 2_000_000, 8000, 65_536, 1);
            assertEquals(10, r.size());
        }
    }

    @Test
    void manySmallMessagesOverEveryPathArriveInOrder() throws Exception {
        int[] sizes = new int[200];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 1 + (i * 37) % 3000;
        }
        p.sendAll(sizes);
        long pathsUsed = p.client.pathStats().stream().filter(s -> s.chunksCompleted() > 0).count();
        assertEquals(4, pathsUsed);
    }
}
