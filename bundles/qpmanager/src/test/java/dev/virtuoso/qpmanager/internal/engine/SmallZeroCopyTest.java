package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.reassembler.ReassemblyCounters;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;

/**
 * Small MP_SENDs into a receive buffer whose region grants REMOTE_WRITE are written there with one
 * RDMA WRITE with immediate (no copy at the receiver); into any other buffer they go by SEND into
 * a slot and are copied. With and without SRQ, on the fabric and on the UDP wire; a WRITE that
 * failed on a path is never delivered twice nor lands in the reused buffer.
 */
class SmallZeroCopyTest {
    private static final int[] LENS = {1, 0, 17, 512, 4000, 3, 1024, 9000, 64, 2};

    private static ReassemblyCounters counters(MultipathConnection c) {
        return ((MpConnection) c).engine().reassembly().counters();
    }

    /**
     * Sends {@link #LENS} into {@code mr} (receives posted first), checks order and every byte, and
     * returns the bytes sent.
     */
    private static long sendAll(Pair p, MemoryRegion mr, ByteBuffer buf) throws Exception {
        return p.sendInOrder(mr, buf, LENS, 100, 200);
    }

    /** Zero copy into the pair's writable region, a copy into a region without REMOTE_WRITE. */
    private static void zeroCopyWhereWritable(Pair p) throws Exception {
        ReassemblyCounters rx = counters(p.server);
        sendAll(p, p.serverMr, p.serverBuf);
        // a message sent while a control message was due rode in it (copied out of its slot)
        long inline = rx.smallInline();
        assertEquals(LENS.length, rx.smallZeroCopy() + inline, rx.toString());
        assertEquals(0, rx.smallCopied(), rx.toString());
        assertEquals(inline == 0, rx.bytesCopied() == 0, rx.toString());
        long copiedBefore = rx.bytesCopied();

        ByteBuffer readOnly = ByteBuffer.allocateDirect(p.serverBuf.capacity());
        MemoryRegion local = p.server.register(readOnly, EnumSet.of(Access.LOCAL_WRITE));
        long bytes = sendAll(p, local, readOnly);
        assertEquals(LENS.length - inline, rx.smallZeroCopy(), "no WRITE into a region without REMOTE_WRITE: " + rx);
        assertEquals(LENS.length, rx.smallCopied() + rx.smallInline() - inline, rx.toString());
        assertEquals(bytes, rx.bytesCopied() - copiedBefore, rx.toString());
        assertEquals(0, rx.duplicates(), rx.toString());
    }

    @Test
    void withAnSrqOnTheFabric() throws Exception {
        try (Fabric f = new Fabric("rate=1g", "rate=1g")) {
            zeroCopyWhereWritable(new Pair(f.connect(Fabric.options(), Fabric.options()), 1 << 20));
        }
    }

    @Test
    void withoutSrqOnTheFabric() throws Exception {
        try (Fabric f = Fabric.withoutSrq("rate=1g", "rate=1g")) {
            zeroCopyWhereWritable(new Pair(f.connect(Fabric.options(), Fabric.options()), 1 << 20));
        }
    }

    @Test
    void onTheUdpWire() throws Exception {
        SoftVerbsProvider provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addressLiterals("127.0.1.1", "127.0.1.2").udpPort(0).build(),
                SoftRnicConfig.builder("b").addressLiterals("127.0.2.1", "127.0.2.2").udpPort(0).build());
        Connector connector = new Connector(name -> name == null || "soft".equals(name) ? provider : null, new DecomposerComponent(),
                new ReassemblerComponent(), new PolicyRegistry(), CoreSettings.DEFAULTS);
        try (MultipathListener listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Fabric.options().device("b").build())) {
            MultipathConnection c = connector.connect(listener.localAddress(), Fabric.options().device("a").build());
            MultipathConnection s = listener.accept(10, TimeUnit.SECONDS);
            assertTrue(s != null, "server side did not accept");
            Pair p = new Pair(new MultipathConnection[] {c, s}, 1 << 20);
            assertEquals(2, c.pathStats().size());
            zeroCopyWhereWritable(p);
        } finally {
            connector.close();
            provider.close();
        }
    }

    /**
     * As SendNoticeTest's stale-write case for small messages: path 1 delays its packets beyond the
     * ACK timeout, so a WRITE with immediate sent there fails at the sender while it may still
     * land. The message is re-sent as a SEND only once path 1 is fenced: it is delivered once, and
     * nothing lands in its buffer after the receive completed and the application reused it.
     */
    @Test
    void aSmallWriteThatFailedIsDeliveredOnceAndNeverLandsInTheReusedBuffer() throws Exception {
        int len = 2000;
        long delayNanos = 100_000_000L;
        try (Fabric f = new Fabric("rate=1g", "rate=1g")) {
            // a 1024-byte MTU: 2000 bytes would make a control message two packets, so they go by
            // WRITE with immediate while no control record is due (else they ride in one)
            var o = Fabric.options().ackTimeout(12).retryCount(1).mtu(1024);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(12).retryCount(1).mtu(1024)), 64 * 1024);
            FabricLink slow = f.links.get(1);
            slow.configure(slow.spec().withDelayNanos(delayNanos));
            ByteBuffer marker = ByteBuffer.allocateDirect(len);
            ReassemblyCounters rx = counters(p.server);
            for (int round = 0; round < 6; round++) {
                p.sendThenReuseTheBuffer(round, marker, len, 2 * delayNanos / 1_000_000);
            }
            assertTrue(p.client.pathStats().get(1).chunksFailed() > 0,
                    "WRITEs on the slow path failed and were re-sent: " + p.client.pathStats());
            assertTrue(rx.smallCopied() + rx.duplicates() > 0, "a failed WRITE was re-sent as a SEND: " + rx);
            assertEquals(6, rx.smallReceived(), rx.toString());
            assertEquals(MpStatus.SUCCESS, p.write(len).status(), "the connection still works");
        }
    }
}
