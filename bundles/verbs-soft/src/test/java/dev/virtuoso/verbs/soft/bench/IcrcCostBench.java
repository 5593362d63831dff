package dev.virtuoso.verbs.soft.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import dev.virtuoso.verbs.soft.packet.Icrc;

/**
 * CPU time of the receive-side ICRC check per datagram, measured as this thread's CPU time (so a
 * loaded machine slows the run but barely changes the figure). Prints one line per payload size:
 * {@code ICRC size=4112 verify_ns=... compute_ns=...}.
 *
 * <pre>java -cp target/classes:target/test-classes dev.virtuoso.verbs.soft.bench.IcrcCostBench</pre>
 */
public final class IcrcCostBench {
    private IcrcCostBench() {
    }

    public static void main(String[] args) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Icrc icrc = new Icrc();
        byte[] src = {127, 0, 0, 1};
        byte[] dst = {127, 0, 0, 2};
        int[] sizes = {32, 1040, 4112};
        for (int len : sizes) {
            ByteBuffer d = ByteBuffer.allocateDirect(len);
            SplittableRandom r = new SplittableRandom(len);
            for (int i = 0; i < len; i++) {
                d.put(i, (byte) r.nextInt());
            }
            // a sender's IPv4 ID the receiver cannot see: the check takes the subspace path
            Icrc.store(d, 0, len, icrc.compute(src, dst, 0x1234, Icrc.IPV4_DF, 4791, 4791, d, 0, len));
            int n = 2_000_000;
            boolean ok = true;
            for (int round = 0; round < 3; round++) { // the last round is reported
                long t0 = mx.getCurrentThreadCpuTime();
                for (int i = 0; i < n; i++) {
                    ok &= icrc.verify(src, dst, 4791, 4791, d, 0, len);
                }
                long t1 = mx.getCurrentThreadCpuTime();
                int sink = 0;
                for (int i = 0; i < n; i++) {
                    sink ^= icrc.compute(src, dst, 4791, 4791, d, 0, len);
                }
                long t2 = mx.getCurrentThreadCpuTime();
                if (round == 2) {
                    System.out.printf("ICRC size=%d verify_ns=%.1f compute_ns=%.1f ok=%b sink=%d%n", len,
                            (t1 - t0) / (double) n, (t2 - t1) / (double) n, ok, sink & 1);
                }
            }
        }
    }
}
