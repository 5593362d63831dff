package dev.virtuoso.qpmanager.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;

/**
 * Measures, per message size, the MP_WRITE completion time when the message goes whole on one
 * path and when it is split in equal shares over every path, to choose the split threshold.
 *
 * <p>{@code SplitThresholdBenchmark <paths> <link spec> <reps> <sizes...>}
 */
public final class SplitThresholdBenchmark {
    private SplitThresholdBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int paths = Integer.parseInt(args[0]);
        String spec = args[1];
        int reps = Integer.parseInt(args[2]);
        int[] sizes = Arrays.stream(args, 3, args.length).mapToInt(Integer::parseInt).toArray();
        List<String> specs = new ArrayList<>();
        for (int i = 0; i < paths; i++) {
            specs.add(spec);
        }
        PolicyRegistry policies = new PolicyRegistry();
        policies.add(EvenSplit.NAME, new EvenSplit());
        ConnectOptions base = ConnectOptions.builder().handshakeTimeout(Duration.ofSeconds(10))
                .chunkSize(1 << 30).build();
        ConnectOptions whole = base.toBuilder().splitThreshold(Integer.MAX_VALUE).build();
        ConnectOptions split = base.toBuilder().splitThreshold(0).loadBalancer(EvenSplit.NAME).build();
        CoreSettings cs = CoreSettings.DEFAULTS;
        int max = Arrays.stream(sizes).max().orElse(1);
        System.out.printf("# %d paths, links '%s', %d repetitions, median / p90 MP_WRITE completion time in us%n",
                paths, spec, reps);
        System.out.printf("%10s %12s %12s %12s %12s%n", "bytes", "whole-med", "whole-p90", "split-med", "split-p90");
        try (Transfer w = new Transfer(specs, whole, cs, b -> b, policies);
                Transfer s = new Transfer(specs, split, cs, b -> b, policies)) {
            Runner rw = new Runner(w, max);
            Runner rs = new Runner(s, max);
            for (int size : sizes) {
                // interleave the two modes so drifting machine load affects both alike
                long[] tw = new long[reps];
                long[] ts = new long[reps];
                rw.run(size, reps / 4 + 1, new long[reps / 4 + 1]);
                rs.run(size, reps / 4 + 1, new long[reps / 4 + 1]);
                for (int r = 0; r < reps; r += 10) {
                    int n = Math.min(10, reps - r);
                    rw.run(size, n, tw, r);
                    rs.run(size, n, ts, r);
                }
                Arrays.sort(tw);
                Arrays.sort(ts);
                System.out.printf("%10d %12.1f %12.1f %12.1f %12.1f%n", size, tw[reps / 2] / 1e3, tw[reps * 9 / 10] / 1e3,
                        ts[reps / 2] / 1e3, ts[reps * 9 / 10] / 1e3);
            }
        }
    }

    /** Repeated MP_WRITEs on one connection between regions registered once. */
    private static final class Runner {
        private final Transfer t;
        private final MemoryRegion src;
        private final MemoryRegion dst;
        private final MpCompletion c = new MpCompletion();

        Runner(Transfer t, int max) throws Exception {
            this.t = t;
            src = t.client.register(ByteBuffer.allocateDirect(max), EnumSet.of(Access.LOCAL_WRITE));
            dst = t.server.register(ByteBuffer.allocateDirect(max), EnumSet.of(Access.REMOTE_WRITE));
        }

        void run(int size, int n, long[] out) throws Exception {
            run(size, n, out, 0);
        }

        void run(int size, int n, long[] out, int at) throws Exception {
            for (int i = 0; i < n; i++) {
                out[at + i] = t.write(src, dst, size, c, 60);
            }
        }
    }
}
