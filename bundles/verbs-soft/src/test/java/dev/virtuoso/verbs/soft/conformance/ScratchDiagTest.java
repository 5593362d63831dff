package dev.virtuoso.verbs.soft.conformance;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;

class ScratchDiagTest {
    @Test
    void diag() throws Exception {
        SoftFabricEnvironment env = new SoftFabricEnvironment();
        for (double loss : new double[] {0.0, 0.01, 0.1}) {
            for (IbvWrOpcode op : new IbvWrOpcode[] {IbvWrOpcode.RDMA_WRITE, IbvWrOpcode.RDMA_READ}) {
                env.setLossRate(loss);
                try (Rig rig = new Rig(env, 1)) {
                    QpPair p = rig.connect(new QpSettings().timeout(12));
                    int size = 4 << 20;
                    Mem src = rig.mem(rig.pdA, size, 7).fillRandom(1);
                    Mem dst = rig.mem(rig.pdB, size, 7);
                    long t0 = System.nanoTime();
                    p.a().postSend(Rig.wr(1, op, src, 0, size, dst, 0));
                    var wc = Rig.expect(rig.cqA, 1).get(0);
                    long t1 = System.nanoTime();
                    System.out.println(loss + " " + op + " " + wc.status() + " " + (t1 - t0) / 1e6 + " ms\n A=" + p.a().counters() + "\n B=" + p.b().counters());
                }
            }
        }
        env.close();
    }
}
