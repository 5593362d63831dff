package dev.virtuoso.itests.robustness;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.itests.robustness.soak.ProcessSnapshot;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Connect, transfer (a verified 64 KiB MP_WRITE over two fabric paths), disconnect, many times: the
 * live thread count and open file descriptors return to their baseline and the heap after GC stays
 * within a tolerance. Cycle count: system property {@code virtuoso.leak.cycles} (default 2,000).
 */
class LeakTest {
    private static final int CYCLES = Integer.getInteger("virtuoso.leak.cycles", 2000);
    private static final int WARMUP = 20;
    private static final int BYTES = 64 << 10;
    /** Heap growth allowed after GC (class loading, JIT, lazily grown pools settle during warm-up). */
    private static final long HEAP_TOLERANCE = 16L << 20;

    @Test
    void connectTransferDisconnectCyclesLeaveNoThreadsDescriptorsOrHeapBehind() throws Exception {
        FabricNetwork network = new FabricNetwork("leak", 5);
        List<InetAddress> a = MultipathPair.addresses("10.8.1.", 1, 2);
        List<InetAddress> b = MultipathPair.addresses("10.8.2.", 1, 2);
        network.addHost("a", a.toArray(new InetAddress[0]));
        network.addHost("b", b.toArray(new InetAddress[0]));
        for (int i = 0; i < 2; i++) {
            network.link(a.get(i), b.get(i), LinkSpec.parse(""));
        }
        SoftVerbsProvider provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addresses(a).fabric(network, "a").build(),
                SoftRnicConfig.builder("b").addresses(b).fabric(network, "b").build());
        ByteBuffer src = ByteBuffer.allocateDirect(BYTES);
        ByteBuffer dst = ByteBuffer.allocateDirect(BYTES);
        try (MultipathPair pair = new MultipathPair(provider)) {
            for (int i = 0; i < WARMUP; i++) {
                cycle(pair, src, dst, i);
            }
            ProcessSnapshot base = ProcessSnapshot.take();
            long t0 = System.nanoTime();
            for (int i = 0; i < CYCLES; i++) {
                cycle(pair, src, dst, WARMUP + i);
            }
            long millis = (System.nanoTime() - t0) / 1_000_000;
            ProcessSnapshot after = ProcessSnapshot.settle(base);
            System.out.printf("LeakTest: %d cycles in %d ms (%.2f ms/cycle); before %s; after %s%n", CYCLES,
                    millis, (double) millis / CYCLES, base, after);
            assertTrue(after.threads() <= base.threads(), "threads leaked: " + base + " -> " + after);
            assertTrue(after.fds() <= base.fds(), "file descriptors leaked: " + base + " -> " + after);
            assertTrue(after.heapBytes() <= base.heapBytes() + HEAP_TOLERANCE, "heap grew: " + base + " -> " + after);
        } finally {
            network.close();
        }
    }

    private static void cycle(MultipathPair pair, ByteBuffer src, ByteBuffer dst, int i) throws Exception {
        MultipathConnection[] cs = pair.connect();
        try {
            src.putLong(0, i);
            src.putLong(BYTES - 8, ~i);
            MultipathPair.writeAndVerify(cs[0], cs[1], src, dst, 30);
        } finally {
            cs[0].close();
            cs[1].close();
        }
    }
}
