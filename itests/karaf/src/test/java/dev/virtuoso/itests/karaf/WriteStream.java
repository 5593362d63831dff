package dev.virtuoso.itests.karaf;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;

/**
 * MP_WRITEs of a fresh pattern each from a client into one registered region of its server, every
 * completion and byte checked; an action can run while one is in flight.
 */
final class WriteStream {
    /** Something done while an MP_WRITE is in flight. */
    interface Action {
        void run() throws Exception;
    }

    private static final long COMPLETION_TIMEOUT_SECONDS = 30;

    private final MultipathConnection client;
    private final int bytes;
    private final ByteBuffer clientBuf;
    private final ByteBuffer serverBuf;
    private final MemoryRegion clientMr;
    private final MemoryRegion serverMr;
    private long written;

    WriteStream(MultipathConnection client, MultipathConnection server, int bytes) throws VirtuosoException {
        this.client = client;
        this.bytes = bytes;
        EnumSet<Access> all = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        clientBuf = ByteBuffer.allocateDirect(bytes);
        serverBuf = ByteBuffer.allocateDirect(bytes);
        clientMr = client.register(clientBuf, all);
        serverMr = server.register(serverBuf, all);
    }

    void write() throws Exception {
        write(null);
    }

    /** One MP_WRITE; {@code action} runs once part, but not all, of it has completed. */
    void write(Action action) throws Exception {
        long before = completedBytes();
        long seed = ++written;
        fill(seed);
        client.postWrite(seed, clientMr, 0, bytes, serverMr.remote(), 0);
        if (action != null) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(COMPLETION_TIMEOUT_SECONDS);
            while (completedBytes() == before) {
                assertTrue("no chunk completed within " + COMPLETION_TIMEOUT_SECONDS + " s: " + client.pathStats(),
                        System.nanoTime() < deadline);
                Thread.sleep(1);
            }
            action.run();
            long done = completedBytes() - before;
            assertTrue("the action ran mid-transfer (" + done + " of " + bytes + " bytes done)", done < bytes);
        }
        MpCompletion c = new MpCompletion();
        assertTrue("no completion within " + COMPLETION_TIMEOUT_SECONDS + " s, paths " + client.pathStats(),
                client.awaitCompletion(c, COMPLETION_TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertEquals(c.toString(), seed, c.wrId());
        assertEquals("MP_WRITE " + seed + " with " + client.loadBalancer() + ": " + c, MpStatus.SUCCESS, c.status());
        assertEquals(MpOpcode.WRITE, c.opcode());
        assertEquals(bytes, c.byteLength());
        int mismatch = clientBuf.slice(0, bytes).mismatch(serverBuf.slice(0, bytes));
        assertEquals("MP_WRITE " + seed + ": first differing byte", -1, mismatch);
    }

    private long completedBytes() {
        long sum = 0;
        for (PathStats path : client.pathStats()) {
            sum += path.bytesCompleted();
        }
        return sum;
    }

    /** A xorshift pattern derived from {@code seed}. */
    private void fill(long seed) {
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i + 8 <= bytes; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            clientBuf.putLong(i, x);
        }
    }
}
