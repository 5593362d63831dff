package dev.virtuoso.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * Full multipath connections through the DiSNI binding (libdisni emulated over soft RNICs, see
 * {@link DisniCoreFabric}): DiSNI 2.1 has no SRQ, so the core runs with a receive queue per path
 * QP. MP_WRITE, MP_READ and MP_SEND byte for byte on 1, 2 and 4 paths, and a path cut while
 * transfers run, with nothing lost.
 */
class DisniMultipathCoreTest {
    private static final int[] SIZES = {1, 7, 4096, 65535, 65536, (1 << 20) + 3, 3 * (1 << 20) + 1};
    private static final EnumSet<Access> ALL = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
            Access.REMOTE_READ);

    private static String[] unlimited(int n) {
        String[] s = new String[n];
        Arrays.fill(s, "rate=0");
        return s;
    }

    @ParameterizedTest(name = "{0} paths")
    @ValueSource(ints = {1, 2, 4})
    void writeReadAndSendByteForByte(int paths) throws Exception {
        try (DisniCoreFabric f = new DisniCoreFabric(unlimited(paths))) {
            assertNoSrq(f);
            Ends e = new Ends(f.connect(DisniCoreFabric.options().chunkSize(256 * 1024), DisniCoreFabric.options()),
                    8 << 20);
            assertEquals(paths, e.client.pathStats().size(), e.client.pathStats().toString());
            assertEquals(paths, e.server.pathStats().size(), e.server.pathStats().toString());
            for (int size : SIZES) {
                MpCompletion w = e.write(size);
                if (size >= 4 * 256 * 1024) {
                    assertEquals(paths, w.paths(), "paths used by a write of " + size);
                }
                e.read(size);
            }
            e.sendAll(SIZES);
            int[] small = new int[200];
            Arrays.fill(small, 1000);
            e.sendAll(small);
            e.sendAll(0, 1, 0);
        }
    }

    @Test
    void pathCutMidTransferLosesNothing() throws Exception {
        try (DisniCoreFabric f = new DisniCoreFabric("rate=400m", "rate=400m", "rate=400m")) {
            var o = DisniCoreFabric.options().ackTimeout(10).retryCount(3).chunkSize(256 * 1024);
            Ends e = new Ends(f.connect(o, DisniCoreFabric.options().ackTimeout(10).retryCount(3)), 32 << 20);
            e.write(1 << 20);
            // a 24 MiB WRITE and a mix of small and large SENDs are in flight when path 1 goes down
            int[] lens = new int[60];
            for (int i = 0; i < lens.length; i++) {
                lens[i] = i % 3 == 2 ? 300 * 1024 + i : 100 + 37 * i;
            }
            int sendBytes = Arrays.stream(lens).sum();
            int writeAt = 8 << 20;
            int writeLen = 24 << 20;
            e.fill(e.clientBuf, 0, 32 << 20);
            int at = 0;
            for (int i = 0; i < lens.length; i++) {
                e.server.postRecv(5000 + i, e.serverMr, at, lens[i]);
                at += lens[i];
            }
            assertTrue(sendBytes <= writeAt);
            e.client.postWrite(9, e.clientMr, writeAt, writeLen, e.serverMr.remote(), writeAt);
            at = 0;
            for (int i = 0; i < lens.length; i++) {
                e.client.postSend(6000 + i, e.clientMr, at, lens[i]);
                at += lens[i];
            }
            Thread.sleep(30);
            f.links.get(1).down();
            for (int i = 0; i < lens.length + 1; i++) {
                MpCompletion c = Ends.await(e.client);
                assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
            }
            for (int i = 0; i < lens.length; i++) {
                MpCompletion c = Ends.await(e.server);
                assertEquals(5000 + i, c.wrId(), "receive completions in send order");
                Ends.assertOk(c, MpOpcode.RECV, lens[i]);
            }
            Ends.assertSame(e.clientBuf, 0, e.serverBuf, 0, sendBytes);
            Ends.assertSame(e.clientBuf, writeAt, e.serverBuf, writeAt, writeLen);
            assertTrue(e.client.pathStats().get(1).chunksFailed() > 0, "path 1 lost chunks: "
                    + e.client.pathStats());
            // the surviving paths carry on: every operation still works
            e.write(4 << 20);
            e.read(4 << 20);
            e.sendAll(100, 2 << 20, 5);
        }
    }

    /** DiSNI 2.1 reports no SRQs and refuses one, so the connections above cannot have used one. */
    private static void assertNoSrq(DisniCoreFabric f) throws Exception {
        try (IbvContext ctx = f.provider.openDevice("a"); IbvPd pd = ctx.allocPd()) {
            assertEquals(0, ctx.queryDevice().maxSrq());
            VerbsException x = assertThrows(VerbsException.class, () -> pd.createSrq(4, 1));
            assertEquals(VerbsException.EOPNOTSUPP, x.errno());
        }
    }

    /** Both ends of a connection with one registered buffer each; every transfer checks every byte. */
    private static final class Ends {
        final MultipathConnection client;
        final MultipathConnection server;
        final ByteBuffer clientBuf;
        final ByteBuffer serverBuf;
        final MemoryRegion clientMr;
        final MemoryRegion serverMr;
        private long nextWrId = 1;
        private long seed = 4711;

        Ends(MultipathConnection[] cs, int bytes) throws Exception {
            client = cs[0];
            server = cs[1];
            clientBuf = ByteBuffer.allocateDirect(bytes);
            serverBuf = ByteBuffer.allocateDirect(bytes);
            clientMr = client.register(clientBuf, ALL);
            serverMr = server.register(serverBuf, ALL);
        }

        void fill(ByteBuffer b, int off, int len) {
            long x = seed++ * 0x9E3779B97F4A7C15L + 1;
            for (int i = 0; i < len; i++) {
                if ((i & 7) == 0) {
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                }
                b.put(off + i, (byte) (x >>> (8 * (i & 7))));
            }
        }

        static void assertSame(ByteBuffer a, int aOff, ByteBuffer b, int bOff, int len) {
            int m = a.slice(aOff, len).mismatch(b.slice(bOff, len));
            assertEquals(-1, m, "first differing byte at " + m + " of " + len);
        }

        static MpCompletion await(MultipathConnection c) throws InterruptedException {
            MpCompletion done = new MpCompletion();
            if (!c.awaitCompletion(done, 60, TimeUnit.SECONDS)) {
                throw new AssertionError("no completion on " + c + " within 60 s: " + c.pathStats());
            }
            return done;
        }

        static void assertOk(MpCompletion c, MpOpcode op, long bytes) {
            assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
            assertEquals(op, c.opcode(), c.toString());
            assertEquals(bytes, c.byteLength(), c.toString());
        }

        MpCompletion write(int len) throws Exception {
            fill(clientBuf, 0, len);
            long id = nextWrId++;
            client.postWrite(id, clientMr, 0, len, serverMr.remote(), 0);
            MpCompletion c = await(client);
            assertEquals(id, c.wrId());
            assertOk(c, MpOpcode.WRITE, len);
            assertSame(clientBuf, 0, serverBuf, 0, len);
            return c;
        }

        void read(int len) throws Exception {
            fill(serverBuf, 0, len);
            long id = nextWrId++;
            client.postRead(id, clientMr, 0, len, serverMr.remote(), 0);
            MpCompletion c = await(client);
            assertEquals(id, c.wrId());
            assertOk(c, MpOpcode.READ, len);
            assertSame(serverBuf, 0, clientBuf, 0, len);
        }

        void sendAll(int... lens) throws Exception {
            int total = 0;
            for (int i = 0; i < lens.length; i++) {
                server.postRecv(1000 + i, serverMr, total, lens[i]);
                total += lens[i];
            }
            fill(clientBuf, 0, total);
            int at = 0;
            for (int i = 0; i < lens.length; i++) {
                client.postSend(2000 + i, clientMr, at, lens[i]);
                at += lens[i];
            }
            for (int i = 0; i < lens.length; i++) {
                MpCompletion c = await(client);
                assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
                assertEquals(MpOpcode.SEND, c.opcode());
            }
            for (int i = 0; i < lens.length; i++) {
                MpCompletion c = await(server);
                assertEquals(1000 + i, c.wrId(), "receive completions in send order");
                assertOk(c, MpOpcode.RECV, lens[i]);
            }
            assertSame(clientBuf, 0, serverBuf, 0, total);
        }
    }
}
