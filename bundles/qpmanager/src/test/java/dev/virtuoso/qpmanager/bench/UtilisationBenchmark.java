package dev.virtuoso.qpmanager.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Path utilisation (the paper's Fig. 5 set-up on the in-process fabric): for N = min..max paths,
 * each link limited to R, one MP_WRITE of B bytes; prints the aggregate goodput against N x R.
 * Every byte of each transfer is checked.
 *
 * <pre>UtilisationBenchmark [rate=200m] [delay=100us] [bytes=1073741824] [min=1] [max=10] [chunk=1048576] [ackTimeout=17] [window=512]</pre>
 *
 * <p>The ACK timeout defaults to 2^17 x 4.096 us (0.54 s): the links lose nothing, so any
 * retransmission would be spurious, caused by a starved soft RNIC thread on a loaded machine. The
 * soft RNIC window (packets in flight per QP) defaults to 512 (2 MiB): on a loaded 2-core machine
 * the soft RNIC thread may not run for tens of milliseconds, and a window shorter than that at the
 * link rate leaves the link idle.
 */
public final class UtilisationBenchmark {
    private UtilisationBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String rate = "200m";
        String delay = "100us";
        long bytes = 1L << 30;
        int min = 1;
        int max = 10;
        int chunk = 1 << 20;
        int ackTimeout = 17;
        int window = 512;
        for (String a : args) {
            String[] kv = a.split("=", 2);
            switch (kv[0]) {
                case "rate" -> rate = kv[1];
                case "delay" -> delay = kv[1];
                case "bytes" -> bytes = Long.parseLong(kv[1]);
                case "min" -> min = Integer.parseInt(kv[1]);
                case "max" -> max = Integer.parseInt(kv[1]);
                case "chunk" -> chunk = Integer.parseInt(kv[1]);
                case "ackTimeout" -> ackTimeout = Integer.parseInt(kv[1]);
                case "window" -> window = Integer.parseInt(kv[1]);
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        if (bytes > Integer.MAX_VALUE) {
            // regions are int-sized: the largest MP_WRITE is 2^31 - 1 bytes
            bytes = Integer.MAX_VALUE;
        }
        String spec = "rate=" + rate + " delay=" + delay;
        double pathBytesPerSecond = LinkSpec.parse(spec).rateBitsPerSecond() / 8.0;
        ByteBuffer src = ByteBuffer.allocateDirect((int) bytes);
        ByteBuffer dst = ByteBuffer.allocateDirect((int) bytes);
        for (int i = 0; i + 8 <= bytes; i += 8) {
            src.putLong(i, i * 0x9E3779B97F4A7C15L);
        }
        ConnectOptions o = ConnectOptions.builder().chunkSize(chunk).ackTimeout(ackTimeout)
                .handshakeTimeout(Duration.ofSeconds(10)).build();
        System.out.printf(Locale.ROOT,
                "# links '%s' (R = %.1f MB/s), MP_WRITE of %d bytes, chunk %d bytes, ackTimeout %d, window %d%n",
                spec, pathBytesPerSecond / 1e6, bytes, chunk, ackTimeout, window);
        int rnicWindow = window;
        System.out.printf(Locale.ROOT, "%5s %12s %12s %10s %9s %8s%n", "paths", "NxR MB/s", "goodput MB/s", "ratio",
                "seconds", "retx");
        for (int n = min; n <= max; n++) {
            List<String> specs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                specs.add(spec);
            }
            try (Transfer t = new Transfer(specs, o, CoreSettings.DEFAULTS, b -> b.windowPackets(rnicWindow))) {
                MemoryRegion s = t.client.register(src, EnumSet.of(Access.LOCAL_WRITE));
                MemoryRegion d = t.server.register(dst, EnumSet.of(Access.REMOTE_WRITE));
                MpCompletion c = new MpCompletion();
                // warm-up: JIT and the QPs' first packets
                t.write(s, d, (int) Math.min(bytes, 16L << 20), c, 600);
                dst.clear();
                dst.put(0, new byte[1]);
                long ns = t.write(s, d, (int) bytes, c, 3600);
                int mismatch = src.slice(0, (int) bytes).mismatch(dst.slice(0, (int) bytes));
                if (mismatch >= 0) {
                    throw new IllegalStateException("byte " + mismatch + " differs");
                }
                long retx = 0;
                for (PathStats p : t.stats()) {
                    retx += Math.max(0, p.retransmissions());
                }
                double goodput = bytes / (ns / 1e9);
                double ideal = n * pathBytesPerSecond;
                System.out.printf(Locale.ROOT, "%5d %12.1f %12.1f %9.1f%% %9.2f %8d%n", n, ideal / 1e6, goodput / 1e6,
                        100 * goodput / ideal, ns / 1e9, retx);
                s.close();
                d.close();
            }
        }
    }
}
