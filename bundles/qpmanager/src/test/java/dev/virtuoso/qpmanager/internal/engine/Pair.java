package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;

/**
 * A connected client/server pair with one registered buffer on each side, and helpers that move
 * data with each MP operation and check every byte.
 */
final class Pair {
    final MultipathConnection client;
    final MultipathConnection server;
    final ByteBuffer clientBuf;
    final ByteBuffer serverBuf;
    final MemoryRegion clientMr;
    final MemoryRegion serverMr;
    private long nextWrId = 1;
    private long seed = 12345;

    Pair(MultipathConnection[] cs, int bufferBytes) throws Exception {
        this(cs, bufferBytes, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
    }

    /** @param access the rights of both regions (without REMOTE_WRITE no message goes straight into a receive) */
    Pair(MultipathConnection[] cs, int bufferBytes, EnumSet<Access> access) throws Exception {
        client = cs[0];
        server = cs[1];
        clientBuf = ByteBuffer.allocateDirect(bufferBytes);
        serverBuf = ByteBuffer.allocateDirect(bufferBytes);
        clientMr = client.register(clientBuf, access);
        serverMr = server.register(serverBuf, access);
    }

    /** Fills {@code len} bytes at {@code off} with a fresh pseudo-random pattern. */
    void fill(ByteBuffer b, int off, int len) {
        long x = seed++ * 0x9E3779B97F4A7C15L + 1;
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.putLong(off + i, x);
        }
        for (; i < len; i++) {
            b.put(off + i, (byte) (x >>> (8 * (i & 7))));
        }
    }

    /** Asserts two ranges are byte for byte equal. */
    /**
     * MP_SENDs of the given lengths from the client's region into receives the server posted first
     * (back to back in {@code mr}, over {@code buf} filled with other bytes): receive completions
     * must come in send order, each with all its message's bytes when taken; then every send's
     * completion is checked.
     *
     * @return bytes sent
     */
    long sendInOrder(MemoryRegion mr, ByteBuffer buf, int[] lens, long recvId, long sendId) throws Exception {
        int total = 0;
        for (int l : lens) {
            total += l;
        }
        fill(clientBuf, 0, total);
        fill(buf, 0, total);
        int at = 0;
        for (int i = 0; i < lens.length; i++) {
            server.postRecv(recvId + i, mr, at, lens[i]);
            at += lens[i];
        }
        at = 0;
        for (int i = 0; i < lens.length; i++) {
            client.postSend(sendId + i, clientMr, at, lens[i]);
            at += lens[i];
        }
        at = 0;
        for (int i = 0; i < lens.length; i++) {
            MpCompletion c = await(server);
            assertEquals(recvId + i, c.wrId(), "receive completions in send order");
            assertOk(c, MpOpcode.RECV, lens[i]);
            assertSame(clientBuf, at, buf, at, lens[i]);
            at += lens[i];
        }
        for (int i = 0; i < lens.length; i++) {
            MpCompletion c = await(client);
            long k = c.wrId() - sendId;
            assertTrue(k >= 0 && k < lens.length, c.toString());
            assertOk(c, MpOpcode.SEND, lens[(int) k]);
        }
        return total;
    }

    /**
     * One round of an MP_SEND of {@code len} bytes (ids 100 + round, 200 + round) whose receive buffer
     * the application overwrites with {@code marker} as soon as it completes: the receive must come
     * once, whole and in order; after {@code settleMillis} no write of an abandoned attempt may have
     * landed in the reused buffer.
     */
    void sendThenReuseTheBuffer(int round, ByteBuffer marker, int len, long settleMillis) throws Exception {
        fill(clientBuf, 0, len);
        server.postRecv(100 + round, serverMr, 0, len);
        client.postSend(200 + round, clientMr, 0, len);
        MpCompletion r = await(server);
        assertEquals(100 + round, r.wrId());
        assertOk(r, MpOpcode.RECV, len);
        assertSame(clientBuf, 0, serverBuf, 0, len);
        fill(marker, 0, len);
        serverBuf.put(0, marker, 0, len);
        assertOk(await(client), MpOpcode.SEND, len);
        Thread.sleep(settleMillis);
        int at = marker.mismatch(serverBuf.slice(0, len));
        assertEquals(-1, at, "round " + round + ": a write of an abandoned attempt landed at byte " + at
                + " after the receive completion; " + ((MpConnection) client).describe());
        MpCompletion[] extra = {new MpCompletion()};
        assertEquals(0, server.pollCompletions(extra), "delivered twice: " + extra[0]);
    }

    static void assertSame(ByteBuffer a, int aOff, ByteBuffer b, int bOff, int len) {
        int m = a.slice(aOff, len).mismatch(b.slice(bOff, len));
        assertEquals(-1, m, "first differing byte at " + m + " of " + len);
    }

    static MpCompletion await(MultipathConnection c) throws InterruptedException {
        MpCompletion done = new MpCompletion();
        if (!c.awaitCompletion(done, 60, TimeUnit.SECONDS)) {
            throw new AssertionError("no completion on " + c + ": " + ((MpConnection) c).describe());
        }
        return done;
    }

    static void assertOk(MpCompletion c, MpOpcode op, long bytes) {
        assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
        assertEquals(op, c.opcode(), c.toString());
        assertEquals(bytes, c.byteLength(), c.toString());
    }

    /** MP_WRITE of {@code len} bytes from client to server; checks every byte. */
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

    /** MP_READ of {@code len} bytes of the server into the client; checks every byte. */
    MpCompletion read(int len) throws Exception {
        fill(serverBuf, 0, len);
        long id = nextWrId++;
        client.postRead(id, clientMr, 0, len, serverMr.remote(), 0);
        MpCompletion c = await(client);
        assertEquals(id, c.wrId());
        assertOk(c, MpOpcode.READ, len);
        assertSame(serverBuf, 0, clientBuf, 0, len);
        return c;
    }

    /**
     * MP_SENDs of the given lengths, back to back, into MP_RECVs the server posted first; checks the
     * receive completions come in send order, with every byte.
     */
    List<MpCompletion> sendAll(int... lens) throws Exception {
        int total = 0;
        for (int l : lens) {
            total += l;
        }
        int at = 0;
        for (int i = 0; i < lens.length; i++) {
            server.postRecv(1000 + i, serverMr, at, lens[i]);
            at += lens[i];
        }
        fill(clientBuf, 0, total);
        at = 0;
        for (int i = 0; i < lens.length; i++) {
            client.postSend(2000 + i, clientMr, at, lens[i]);
            at += lens[i];
        }
        List<MpCompletion> sends = new ArrayList<>();
        for (int i = 0; i < lens.length; i++) {
            MpCompletion c = await(client);
            assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
            assertEquals(MpOpcode.SEND, c.opcode());
            sends.add(c);
        }
        List<MpCompletion> recvs = new ArrayList<>();
        at = 0;
        for (int i = 0; i < lens.length; i++) {
            MpCompletion c = await(server);
            assertEquals(1000 + i, c.wrId(), "receive completions in send order");
            assertOk(c, MpOpcode.RECV, lens[i]);
            recvs.add(c);
        }
        assertSame(clientBuf, 0, serverBuf, 0, total);
        return recvs;
    }
}
