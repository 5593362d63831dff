package dev.virtuoso.itests.robustness;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;

/**
 * A hostile host sprays random and RoCE-looking datagrams at both soft RNICs' UDP ports while a real
 * 32 MiB MP_WRITE runs over four paths on 127.0.0.x: the transfer completes with every byte intact
 * and the garbage is counted as dropped.
 */
class HostilePeerTest {
    private static final int PATHS = 4;
    private static final int BYTES = 32 << 20;

    @Test
    void multipathWriteSurvivesADatagramSprayer() throws Exception {
        List<java.net.InetAddress> a = MultipathPair.addresses("127.0.0.", 41, PATHS);
        List<java.net.InetAddress> b = MultipathPair.addresses("127.0.0.", 51, PATHS);
        SoftVerbsProvider provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addresses(a).udpPort(0).icrcCheck(true).build(),
                SoftRnicConfig.builder("b").addresses(b).udpPort(0).icrcCheck(true).build());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong sprayed = new AtomicLong();
        try (MultipathPair pair = new MultipathPair(provider)) {
            IbvContext ca = provider.openDevice("a");
            IbvContext cb = provider.openDevice("b");
            long dropsBefore = Drops.sum(ca.counters()) + Drops.sum(cb.counters());
            MultipathConnection[] cs = pair.connect();
            ByteBuffer src = ByteBuffer.allocateDirect(BYTES);
            ByteBuffer dst = ByteBuffer.allocateDirect(BYTES);
            MultipathPair.fill(src, 42);
            Thread sprayer = new Thread(() -> spray(a, ca.udpPort(), b, cb.udpPort(), stop, sprayed),
                    "virtuoso-hostile-sprayer-1");
            sprayer.setDaemon(true);
            sprayer.start();
            try {
                MultipathPair.writeAndVerify(cs[0], cs[1], src, dst, 180);
            } finally {
                stop.set(true);
                sprayer.join(5000);
            }
            assertTrue(sprayed.get() > 0, "the sprayer sent nothing");
            long drops = Drops.sum(ca.counters()) + Drops.sum(cb.counters()) - dropsBefore;
            assertTrue(drops > 0, "no garbage counted as dropped (" + sprayed.get() + " sent)");
            assertTrue(provider.device("a").isRunning() && provider.device("b").isRunning(), "an engine died");
            cs[0].close();
            cs[1].close();
        }
    }

    /** Random sizes and bytes; half of them start like an RC request to keep deeper checks busy. */
    private static void spray(List<java.net.InetAddress> a, int aPort, List<java.net.InetAddress> b, int bPort,
            AtomicBoolean stop, AtomicLong sent) {
        SplittableRandom r = new SplittableRandom(1234);
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.60", 0));
            ch.configureBlocking(false);
            ByteBuffer out = ByteBuffer.allocate(2048);
            while (!stop.get()) {
                int len = r.nextInt(1, 1500);
                out.clear();
                for (int i = 0; i < len; i++) {
                    out.put((byte) r.nextInt());
                }
                if (len >= 12 && r.nextBoolean()) {
                    out.put(0, (byte) r.nextInt(0x19)); // an RC opcode
                    out.put(1, (byte) 0x40);
                    out.put(2, (byte) 0xFF);
                    out.put(3, (byte) 0xFF);
                    out.put(5, (byte) 0);
                    out.put(6, (byte) 0); // small QPNs: the ones the devices hand out first
                    out.put(7, (byte) r.nextInt(1, 32));
                }
                out.flip();
                boolean toB = r.nextBoolean();
                List<java.net.InetAddress> target = toB ? b : a;
                ch.send(out, new InetSocketAddress(target.get(r.nextInt(target.size())), toB ? bPort : aPort));
                if (sent.incrementAndGet() % 32 == 0) {
                    Thread.sleep(1); // a steady stream, not a flood that only measures socket buffers
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("sprayer failed", e);
        }
    }
}
