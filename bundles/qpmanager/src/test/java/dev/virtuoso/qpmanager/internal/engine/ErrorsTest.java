package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.api.VirtuosoException;

/** Errors a correct program can meet: each fails only its own request; the connection goes on. */
class ErrorsTest {
    private static Fabric fabric;
    private static Pair p;

    @BeforeAll
    static void connect() throws Exception {
        fabric = new Fabric("rate=0", "rate=0");
        p = new Pair(fabric.connect(Fabric.options().maxOutstanding(64).chunkSize(64 * 1024),
                Fabric.options().maxOutstanding(64)), 4 << 20);
    }

    @AfterAll
    static void close() {
        fabric.close();
    }

    @Test
    void badRemoteKeyFailsTheWriteAndThePathIsRepaired() throws Exception {
        RemoteMemory bogus = new RemoteMemory(p.serverMr.remote().address(), p.serverMr.remote().rkey() ^ 0x5A5A,
                1 << 20);
        p.client.postWrite(77, p.clientMr, 0, 1 << 20, bogus, 0);
        MpCompletion c = Pair.await(p.client);
        assertEquals(77, c.wrId());
        assertEquals(MpStatus.REMOTE_ACCESS_ERROR, c.status(), c.toString());
        p.write(3 << 20);
        p.read(1 << 20);
        p.sendAll(100, 200_000);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline
                && p.client.pathStats().stream().anyMatch(s -> s.state() != PathState.UP)) {
            Thread.sleep(10);
        }
        assertTrue(p.client.pathStats().stream().allMatch(s -> s.state() == PathState.UP), "paths repaired: "
                + p.client.pathStats());
        MpCompletion w = p.write(1 << 20);
        assertEquals(2, w.paths(), "both paths carry chunks again");
    }

    @Test
    void messageLongerThanTheReceiveBufferFailsBothSidesWithoutWritingOutside() throws Exception {
        for (int len : new int[] {1000, 300_000}) {
            p.serverBuf.put(0, new byte[512 * 1024]);
            p.server.postRecv(1, p.serverMr, 100, len - 1);
            p.client.postSend(2, p.clientMr, 0, len);
            MpCompletion s = Pair.await(p.client);
            assertEquals(MpStatus.REMOTE_OPERATION_ERROR, s.status(), s.toString());
            MpCompletion r = Pair.await(p.server);
            assertEquals(MpStatus.LOCAL_LENGTH_ERROR, r.status(), r.toString());
            assertEquals(MpOpcode.RECV, r.opcode());
            assertEquals(len, r.byteLength());
            assertEquals(-1, p.serverBuf.slice(0, 512 * 1024).mismatch(ByteBuffer.allocate(512 * 1024)),
                    "nothing written");
        }
        p.sendAll(10, 300_000);
    }

    @Test
    void largeMessageIntoALocalOnlyRegionFails() throws Exception {
        ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
        MemoryRegion local = p.server.register(b, EnumSet.of(Access.LOCAL_WRITE));
        p.server.postRecv(1, local, 0, 1 << 20);
        p.client.postSend(2, p.clientMr, 0, 500_000);
        assertEquals(MpStatus.REMOTE_ACCESS_ERROR, Pair.await(p.client).status());
        assertEquals(MpStatus.LOCAL_PROTECTION_ERROR, Pair.await(p.server).status());
        p.server.postRecv(3, local, 0, 1 << 20);
        p.client.postSend(4, p.clientMr, 0, 1000);
        Pair.assertOk(Pair.await(p.client), MpOpcode.SEND, 1000);
        Pair.assertOk(Pair.await(p.server), MpOpcode.RECV, 1000);
        local.close();
    }

    @Test
    void invalidArgumentsAreRejectedAtPostTime() throws Exception {
        RemoteMemory r = p.serverMr.remote();
        assertThrows(IllegalArgumentException.class, () -> p.client.postWrite(1, p.clientMr, 1, 4 << 20, r, 0));
        assertThrows(IllegalArgumentException.class, () -> p.client.postWrite(1, p.clientMr, 0, 10, r, r.length()));
        assertThrows(IllegalArgumentException.class, () -> p.client.postWrite(1, p.clientMr, -1, 10, r, 0));
        assertThrows(IllegalArgumentException.class, () -> p.client.postSend(1, p.serverMr, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> p.client.register(ByteBuffer.allocate(10),
                EnumSet.of(Access.LOCAL_WRITE)));
        MemoryRegion ro = p.client.register(ByteBuffer.allocateDirect(64), EnumSet.of(Access.REMOTE_READ));
        assertThrows(IllegalArgumentException.class, () -> p.client.postRecv(1, ro, 0, 64));
        assertThrows(IllegalArgumentException.class, () -> p.client.postRead(1, ro, 0, 64, r, 0));
        ro.close();
        assertThrows(IllegalArgumentException.class, () -> p.client.postSend(1, ro, 0, 1));
    }

    @Test
    void queueFullWhenTooManyRequestsAreOutstanding() throws Exception {
        for (int i = 0; i < 64; i++) {
            p.client.postWrite(i, p.clientMr, 0, 1, p.serverMr.remote(), 0);
        }
        VirtuosoException e = assertThrows(VirtuosoException.class,
                () -> p.client.postWrite(99, p.clientMr, 0, 1, p.serverMr.remote(), 0));
        assertEquals(VirtuosoException.Reason.QUEUE_FULL, e.reason());
        MpCompletion[] out = new MpCompletion[64];
        for (int i = 0; i < out.length; i++) {
            out[i] = new MpCompletion();
        }
        int got = 0;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (got < 64 && System.nanoTime() < deadline) {
            got += p.client.pollCompletions(java.util.Arrays.copyOfRange(out, 0, 64 - got));
        }
        assertEquals(64, got);
        p.write(10);
    }

    @Test
    void closedRegionFailsRequestsThatUseIt() throws Exception {
        ByteBuffer b = ByteBuffer.allocateDirect(4096);
        MemoryRegion m = p.client.register(b, EnumSet.of(Access.LOCAL_WRITE));
        m.close();
        assertThrows(IllegalArgumentException.class, () -> p.client.postWrite(1, m, 0, 10, p.serverMr.remote(), 0));
        MemoryRegion racing = p.client.register(ByteBuffer.allocateDirect(1 << 20), EnumSet.of(Access.LOCAL_WRITE));
        p.client.postWrite(5, racing, 0, 1 << 20, p.serverMr.remote(), 0);
        racing.close();
        MpCompletion c = Pair.await(p.client);
        assertEquals(5, c.wrId());
        assertTrue(List.of(MpStatus.SUCCESS, MpStatus.LOCAL_PROTECTION_ERROR).contains(c.status()), c.toString());
        p.write(1 << 20);
    }
}
