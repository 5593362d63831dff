package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvQpAttr;

/** The congestion policy's pacing rate reaches each path's QP as its rate limit, where the device paces. */
class PathPacerTest {

    /** A policy whose sessions pace every path at {@link #rate} bits per second. */
    static final class Paced implements CongestionAvoidancePolicy {
        final AtomicLong rate = new AtomicLong();

        @Override
        public String name() {
            return "paced";
        }

        @Override
        public CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths) {
            return new CongestionAvoidanceSession() {
                @Override
                public long maxChunkBytes(int path) {
                    return 64 * 1024;
                }

                @Override
                public int maxOutstandingChunks(int path) {
                    return 2;
                }

                @Override
                public long pacingBitsPerSecond(int path) {
                    return rate.get();
                }

                @Override
                public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
                }

                @Override
                public void onPathsChanged() {
                }

                @Override
                public void close() {
                }
            };
        }
    }

    private static int rateLimit(Pair p, int path) throws Exception {
        IbvQpAttr a = new IbvQpAttr();
        ((MpConnection) p.client).engine().paths().slot(path).qp.queryQp(a);
        return a.rateLimit();
    }

    @Test
    void thePoliciesRateBecomesEachPathsRateLimitWhenItChangesEnough() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            Paced paced = new Paced();
            f.policies.add("paced", paced);
            Pair p = new Pair(f.connect(Fabric.options().congestionAvoidance("paced"), Fabric.options()), 1 << 20);
            p.write(1 << 20);
            assertEquals(0, rateLimit(p, 0), "0: not paced");

            paced.rate.set(400_000_000);
            p.write(1 << 20);
            assertEquals(400_000, rateLimit(p, 0), "kbit/s");
            assertEquals(400_000, rateLimit(p, 1), "every path");

            paced.rate.set(410_000_000); // 2.5% more: not worth a modify_qp
            p.write(1 << 20);
            assertEquals(400_000, rateLimit(p, 0));

            paced.rate.set(500_000_000);
            p.write(1 << 20);
            assertEquals(500_000, rateLimit(p, 0));

            paced.rate.set(0);
            p.write(1 << 20);
            assertEquals(0, rateLimit(p, 0), "the limit is lifted");
            assertEquals(0, rateLimit(p, 1));
        }
    }

    @Test
    void ratesAreRoundedUpIntoTheDevicesRange() {
        PathPacer pacer = new PathPacer(new IbvDeviceAttr().qpRateLimitMin(1000).qpRateLimitMax(2_000_000), 4);
        assertTrue(pacer.capable());
        assertEquals(0, pacer.kbps(0), "no limit stays none");
        assertEquals(0, pacer.kbps(-5));
        assertEquals(1000, pacer.kbps(1), "at least the device's minimum");
        assertEquals(1500, pacer.kbps(1_499_001), "rounded up to whole kbit/s");
        assertEquals(1500, pacer.kbps(1_500_000));
        assertEquals(2_000_000, pacer.kbps(Long.MAX_VALUE), "at most the maximum");
    }

    @Test
    void aDeviceThatCannotPaceIsNeverAsked() {
        PathPacer pacer = new PathPacer(new IbvDeviceAttr(), 4);
        assertFalse(pacer.capable());
        assertEquals(0, pacer.update(null, null, null), "nothing read, nothing applied");
        assertEquals(0, pacer.changes());
    }
}
