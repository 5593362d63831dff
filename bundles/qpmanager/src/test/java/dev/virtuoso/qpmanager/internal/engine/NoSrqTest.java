package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathState;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The core on devices without shared receive queues: soft RNICs configured to advertise
 * {@code max_srq = 0} (and to refuse {@code createSrq}), so every path QP has a receive queue of
 * its own with a full set of small-message slots.
 */
class NoSrqTest {
    private static final int[] SIZES = {1, 7, 4096, 65535, 65536, (1 << 20) + 3, 5 * (1 << 20) + 1};

    private static String[] unlimited(int n) {
        String[] s = new String[n];
        Arrays.fill(s, "rate=0");
        return s;
    }

    @ParameterizedTest(name = "{0} paths")
    @ValueSource(ints = {1, 2, 4})
    void everyOperationByteForByteOnPerQpReceiveQueues(int paths) throws Exception {
        try (Fabric f = Fabric.withoutSrq(unlimited(paths))) {
            assertNoSrq(f);
            Pair p = new Pair(f.connect(Fabric.options().chunkSize(256 * 1024), Fabric.options()), 16 << 20);
            assertEquals(paths, p.client.pathStats().size());
            for (int size : SIZES) {
                p.write(size);
                p.read(size);
            }
            p.sendAll(SIZES);
            // four times the slots of one QP: slots are reposted on the receive queue that consumed them
            int[] small = new int[256];
            Arrays.fill(small, 1000);
            p.sendAll(small);
        }
    }

    @Test
    void pathCutDuringSendsLosesNothingAndTheRepairedPathReceivesAgain() throws Exception {
        try (Fabric f = Fabric.withoutSrq("rate=400m", "rate=400m", "rate=400m")) {
            var o = Fabric.options().ackTimeout(10).retryCount(3).chunkSize(256 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(10).retryCount(3)), 32 << 20);
            p.write(1 << 20);
            int[] lens = new int[120];
            for (int i = 0; i < lens.length; i++) {
                lens[i] = i % 3 == 2 ? 600 * 1024 + i : 100 + 37 * i;
            }
            sendWithCut(p, f, 1, lens);
            assertTrue(p.client.pathStats().get(1).chunksFailed() > 0, "path 1 lost chunks: " + p.client.pathStats());

            f.links.get(1).up();
            long deadline = System.nanoTime() + 20_000_000_000L;
            long before = p.client.pathStats().get(1).bytesCompleted();
            while (p.client.pathStats().get(1).bytesCompleted() == before && System.nanoTime() < deadline) {
                p.write(4 << 20);
            }
            assertEquals(PathState.UP, p.client.pathStats().get(1).state(), "path 1 failed back");
            // the repaired path's new QPs have slots again: small SENDs over every path all arrive
            int[] small = new int[200];
            Arrays.fill(small, 2000);
            p.sendAll(small);
            p.sendAll(SIZES);
        }
    }

    /**
     * Posts MP_RECVs and MP_SENDs of {@code lens}, takes path {@code cut} down while they run, and
     * checks every send succeeded and every receive completed in order with every byte.
     */
    static void sendWithCut(Pair p, Fabric f, int cut, int... lens) throws Exception {
        int at = 0;
        for (int i = 0; i < lens.length; i++) {
            p.server.postRecv(5000 + i, p.serverMr, at, lens[i]);
            at += lens[i];
        }
        p.fill(p.clientBuf, 0, at);
        at = 0;
        for (int i = 0; i < lens.length; i++) {
            p.client.postSend(6000 + i, p.clientMr, at, lens[i]);
            at += lens[i];
        }
        f.cutWhileCarrying(p.client, cut);
        for (int i = 0; i < lens.length; i++) {
            MpCompletion c = Pair.await(p.client);
            assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
        }
        for (int i = 0; i < lens.length; i++) {
            MpCompletion c = Pair.await(p.server);
            assertEquals(5000 + i, c.wrId(), "receive completions in send order");
            Pair.assertOk(c, MpOpcode.RECV, lens[i]);
        }
        Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, at);
    }

    /** The devices really lack SRQs, so the connection above cannot have used one. */
    private static void assertNoSrq(Fabric f) throws Exception {
        for (String dev : new String[] {"a", "b"}) {
            try (IbvContext ctx = f.provider.openDevice(dev); IbvPd pd = ctx.allocPd()) {
                assertEquals(0, ctx.queryDevice().maxSrq(), dev);
                VerbsException e = assertThrows(VerbsException.class, () -> pd.createSrq(4, 1));
                assertEquals(VerbsException.EOPNOTSUPP, e.errno());
            }
        }
    }
}
