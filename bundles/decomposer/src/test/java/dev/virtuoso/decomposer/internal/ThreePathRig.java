package dev.virtuoso.decomposer.internal;

import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionWiring;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/** A decomposition over three UP paths and a recording transport, started at t = 1 s. */
final class ThreePathRig {
    final RecordingTransport transport = new RecordingTransport();
    final List<MpStatus> done = new ArrayList<>();
    final MessageSpec spec = new MessageSpec();
    final PathTable paths = new PathTable(16);
    final Decomposition d;
    private final IbvWc wc = new IbvWc();

    ThreePathRig() {
        transport.paths = paths;
        for (int i = 0; i < 3; i++) {
            paths.add();
        }
        d = new DecomposerComponent().newDecomposition(
                new DecompositionConfig("t", 64, 256, 64 * 1024, 1 << 20, 4, 1_000_000_000L, 1L << 60),
                new DecompositionWiring(paths, transport, (wrId, tag, op, st, bytes, n, detail) -> done.add(st), null,
                        null));
        d.tick(1_000_000_000L);
    }

    /** Completes a posted chunk with {@code status}. */
    void complete(RecordingTransport.Chunk c, IbvWcStatus status) {
        wc.set(c.wrId(), status, IbvWcOpcode.RDMA_WRITE, c.length(), 0, 0, 1, 0, 0);
        d.onCompletion(wc);
    }
}
