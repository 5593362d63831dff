package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;

/** Exact data under random loss (1% and 10%), recovered by the transport alone. */
public abstract class LossConformance extends ConformanceBase {

    /** Short timeout (16.8 ms) so losses of a last packet or an ACK recover quickly. */
    static QpSettings lossy() {
        return new QpSettings().timeout(12).retryCnt(7);
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (double loss : new double[] {0.01, 0.10}) {
            int size = loss < 0.05 ? 4 << 20 : 512 << 10;
            for (IbvWrOpcode op : new IbvWrOpcode[] {IbvWrOpcode.RDMA_WRITE, IbvWrOpcode.RDMA_READ,
                IbvWrOpcode.SEND, IbvWrOpcode.RDMA_WRITE_WITH_IMM}) {
                out.add(Arguments.of(loss, op, size));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{1} of {2} bytes at loss {0}")
    @MethodSource("cases")
    void exactDataUnderLoss(double loss, IbvWrOpcode op, int size) throws Exception {
        assumeTrue(env.setLossRate(loss), env.name() + " cannot emulate loss");
        QpPair p = rig.connect(lossy());
        TransferConformance.transferOnce(rig, p, op, size, (long) (loss * 1000) + size);
        assertRecovered(p);
    }

    /** The transport must have done the recovering (where the provider counts it). */
    static void assertRecovered(QpPair p) {
        long a = p.a().counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
        long b = p.b().counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
        if (a >= 0 && b >= 0) {
            assertTrue(a + b > 0, "no retransmission under loss: was anything lost?");
        }
    }

    @Test
    void manySmallSendsArriveOnceAndInOrderUnderLoss() throws Exception {
        assumeTrue(env.setLossRate(0.10), env.name() + " cannot emulate loss");
        QpPair p = rig.connect(lossy());
        int n = 64;
        int size = 2 * rig.mtu() + 100;
        Mem src = rig.mem(rig.pdA, n * size, IbvAccess.LOCAL_WRITE).fillRandom(8);
        Mem dst = rig.mem(rig.pdB, n * size, TransferConformance.ALL).fill((byte) 0);
        for (int i = 0; i < n; i++) {
            p.b().postRecv(Rig.recv(i, dst, i * size, size));
        }
        for (int i = 0; i < n; i++) {
            p.a().postSend(Rig.wr(i, IbvWrOpcode.SEND_WITH_IMM, src, i * size, size, null, 0)
                    .immData(i));
        }
        List<IbvWc> sc = Rig.expect(rig.cqA, n);
        List<IbvWc> rc = Rig.expect(rig.cqB, n);
        for (int i = 0; i < n; i++) {
            assertEquals(IbvWcStatus.SUCCESS, sc.get(i).status(), sc.get(i).toString());
            assertEquals(i, sc.get(i).wrId());
            assertEquals(IbvWcStatus.SUCCESS, rc.get(i).status(), rc.get(i).toString());
            assertEquals(i, rc.get(i).wrId());
            assertEquals(i, rc.get(i).immData());
            assertEquals(size, rc.get(i).byteLen());
        }
        assertEquals(-1, dst.mismatch(0, src, 0, n * size));
        assertEquals(0, Rig.quiet(rig.cqB, 100).size(), "a message was delivered twice");
        assertRecovered(p);
    }
}
