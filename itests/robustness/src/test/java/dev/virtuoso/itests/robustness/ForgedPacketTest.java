package dev.virtuoso.itests.robustness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.Psn;
import dev.virtuoso.verbs.soft.packet.RcOpcode;

/**
 * A host that sees the traffic ({@link TapWire}) forges in-window packets at the live QPNs and
 * PSNs from another address (127.0.0.99), with correct ICRCs, during byte-verified 8 MiB MP_WRITEs
 * and MP_READs over four paths: WRITE data (FIRST/MIDDLE/ONLY) at the next expected PSN with the
 * live rkey, out-of-range READ requests, forged READ responses, ACKs ahead of the data, and NAKs
 * (sequence, invalid request, remote access). Every operation must succeed with every byte
 * intact, and the forgeries are counted as {@code DROP_BAD_SOURCE} on both devices.
 */
class ForgedPacketTest {
    private static final int PATHS = 4;
    private static final int BYTES = 8 << 20;
    private static final int ROUNDS = 6;
    private static final byte[] FORGER_IP = {127, 0, 0, 99};

    @Test
    void forgedPacketsFromAnotherAddressNeitherCorruptNorFailTransfers() throws Exception {
        List<InetAddress> a = MultipathPair.addresses("127.0.0.", 81, PATHS);
        List<InetAddress> b = MultipathPair.addresses("127.0.0.", 91, PATHS);
        Map<String, TapWire.Seen> seen = TapWire.newTable();
        SoftVerbsProvider provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addresses(a).udpPort(0).wire(n -> new TapWire(seen)).build(),
                SoftRnicConfig.builder("b").addresses(b).udpPort(0).wire(n -> new TapWire(seen)).build());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong forged = new AtomicLong();
        try (MultipathPair pair = new MultipathPair(provider)) {
            IbvContext ca = provider.openDevice("a");
            IbvContext cb = provider.openDevice("b");
            MultipathConnection[] cs = pair.connect();
            Thread forger = new Thread(() -> forge(seen, stop, forged), "virtuoso-forger-1");
            forger.setDaemon(true);
            forger.start();
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    MultipathPair.writeAndVerify(cs[0], cs[1], buffer(round), ByteBuffer.allocateDirect(BYTES), 120);
                    readAndVerify(cs[0], cs[1], buffer(100 + round));
                }
            } finally {
                stop.set(true);
                forger.join(5000);
            }
            assertTrue(forged.get() > 0, "the forger sent nothing");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (dropped(ca) + dropped(cb) < forged.get() && System.nanoTime() - deadline < 0) {
                Thread.sleep(10); // the last forgeries may still sit in socket buffers
            }
            long droppedA = ca.counters().get(VerbsCounter.DROP_BAD_SOURCE);
            long droppedB = cb.counters().get(VerbsCounter.DROP_BAD_SOURCE);
            assertTrue(droppedA > 0 && droppedB > 0, "forgeries not counted: a " + droppedA + ", b "
                    + droppedB + " of " + forged.get());
            assertEquals(forged.get(), dropped(ca) + dropped(cb), "every forgery dropped: a "
                    + ca.counters() + ", b " + cb.counters());
            System.out.printf("forged %d packets; DROP_BAD_SOURCE a=%d b=%d%n", forged.get(), droppedA,
                    droppedB);
            assertTrue(provider.device("a").isRunning() && provider.device("b").isRunning(), "an engine died");
            cs[0].close();
            cs[1].close();
        }
    }

    /** Forgeries dropped: from the wrong source, or aimed at a QP closed meanwhile. */
    private static long dropped(IbvContext c) {
        return c.counters().get(VerbsCounter.DROP_BAD_SOURCE) + c.counters().get(VerbsCounter.DROP_UNKNOWN_QP);
    }

    private static ByteBuffer buffer(long seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(BYTES);
        MultipathPair.fill(b, seed);
        return b;
    }

    /** MP_READ of the server's {@code src} into a fresh client buffer; asserts success and bytes. */
    private static void readAndVerify(MultipathConnection client, MultipathConnection server, ByteBuffer src)
            throws Exception {
        ByteBuffer dst = ByteBuffer.allocateDirect(BYTES);
        try (MemoryRegion d = client.register(dst, EnumSet.of(Access.LOCAL_WRITE));
                MemoryRegion s = server.register(src, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ))) {
            client.postRead(8, d, 0, BYTES, s.remote(), 0);
            MpCompletion done = new MpCompletion();
            assertTrue(client.awaitCompletion(done, 120, TimeUnit.SECONDS), "MP_READ did not complete");
            assertEquals(MpStatus.SUCCESS, done.status(), done.toString());
            int m = src.duplicate().clear().mismatch(dst.duplicate().clear());
            assertEquals(-1, m, "first differing byte at " + m);
        }
    }

    /** Aims every kind of forgery at every QP seen so far, until stopped. */
    private static void forge(Map<String, TapWire.Seen> seen, AtomicBoolean stop, AtomicLong forged) {
        SplittableRandom r = new SplittableRandom(0xF0F);
        PacketBuilder pb = new PacketBuilder();
        Icrc icrc = new Icrc();
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.99", 0));
            ch.configureBlocking(false);
            int srcPort = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            while (!stop.get()) {
                for (TapWire.Seen s : TapWire.snapshot(seen)) {
                    int next = Psn.next(s.psn());
                    int kinds = s.request() ? 5 : 6;
                    for (int kind = 0; kind < kinds; kind++) {
                        build(pb, s, kind, next, r);
                        ByteBuffer d = pb.finish(icrc, FORGER_IP, s.to().getAddress().getAddress(), srcPort,
                                s.to().getPort());
                        ch.send(d, s.to());
                        forged.incrementAndGet();
                    }
                }
                Thread.sleep(1); // a steady stream, not a flood that only measures socket buffers
            }
        } catch (Exception e) {
            throw new IllegalStateException("forger failed", e);
        }
    }

    private static void build(PacketBuilder pb, TapWire.Seen s, int kind, int next, SplittableRandom r) {
        int qp = s.qpn();
        if (s.request()) {
            switch (kind) {
                case 0: // the next WRITE packet, in place, with junk
                    junk(pb.begin(RcOpcode.WRITE_ONLY, false, qp, true, next, 1024)
                            .reth(s.va(), s.rkey(), 1024), r);
                    break;
                case 1:
                    junk(pb.begin(RcOpcode.WRITE_MIDDLE, false, qp, false, next, 4096), r);
                    break;
                case 2:
                    junk(pb.begin(RcOpcode.WRITE_FIRST, false, qp, false, next, 4096)
                            .reth(s.va(), s.rkey(), 8192), r);
                    break;
                case 3: // out of range: starts before the region
                    pb.begin(RcOpcode.READ_REQUEST, false, qp, true, next, 0)
                            .reth(s.va() - 4096, s.rkey(), 1 << 20);
                    break;
                default:
                    junk(pb.begin(RcOpcode.SEND_ONLY, false, qp, true, next, 256), r);
                    break;
            }
            return;
        }
        switch (kind) {
            case 0: // acknowledges data that has not arrived yet
                pb.begin(RcOpcode.ACKNOWLEDGE, false, qp, false, Psn.add(s.psn(), 1 + r.nextInt(64)), 0)
                        .aeth(Aeth.ACK_UNLIMITED, 0);
                break;
            case 1:
                pb.begin(RcOpcode.ACKNOWLEDGE, false, qp, false, next, 0).aeth(Aeth.NAK_PSN_SEQUENCE, 0);
                break;
            case 2:
                pb.begin(RcOpcode.ACKNOWLEDGE, false, qp, false, next, 0).aeth(Aeth.NAK_INVALID_REQUEST, 0);
                break;
            case 3:
                pb.begin(RcOpcode.ACKNOWLEDGE, false, qp, false, next, 0).aeth(Aeth.NAK_REMOTE_ACCESS, 0);
                break;
            case 4:
                junk(pb.begin(RcOpcode.READ_RESPONSE_ONLY, false, qp, false, next, 4096)
                        .aeth(Aeth.ACK_UNLIMITED, 0), r);
                break;
            default:
                junk(pb.begin(RcOpcode.READ_RESPONSE_MIDDLE, false, qp, false, next, 4096), r);
                break;
        }
    }

    private static void junk(PacketBuilder pb, SplittableRandom r) {
        ByteBuffer b = pb.buffer();
        int off = pb.payloadOffset();
        for (int i = 0; i < pb.payloadLength(); i++) {
            b.put(off + i, (byte) r.nextInt());
        }
    }
}
