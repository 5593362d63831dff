package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.VirtuosoException;

/**
 * MP_WRITEs of a fresh pattern each, from a connection's client into one registered region of its
 * server, every completion and byte checked. Used inside the framework only (see {@link SoftFabric}).
 */
final class WriteStream {
    /** Something done while an MP_WRITE is in flight. */
    interface Action {
        void run() throws Exception;
    }

    private final MultipathConnection client;
    private final int bytes;
    private final ByteBuffer clientBuf;
    private final ByteBuffer serverBuf;
    private final MemoryRegion clientMr;
    private final MemoryRegion serverMr;
    private long written;

    /**
     * @param cs {client, server} of one connection
     * @param bytes size of every MP_WRITE (and of the two registered buffers)
     */
    WriteStream(MultipathConnection[] cs, int bytes) throws VirtuosoException {
        this.client = cs[0];
        this.bytes = bytes;
        EnumSet<Access> all = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        clientBuf = ByteBuffer.allocateDirect(bytes);
        serverBuf = ByteBuffer.allocateDirect(bytes);
        clientMr = client.register(clientBuf, all);
        serverMr = cs[1].register(serverBuf, all);
    }

    /** @return the number of MP_WRITEs posted so far */
    long written() {
        return written;
    }

    /** Posts one MP_WRITE of a fresh pattern. @return its wr_id */
    long post() throws VirtuosoException {
        long seed = ++written;
        SoftFabric.fill(clientBuf, 0, bytes, seed);
        client.postWrite(seed, clientMr, 0, bytes, serverMr.remote(), 0);
        return seed;
    }

    /** One whole MP_WRITE, checked. */
    void write() throws Exception {
        write(null);
    }

    /**
     * One MP_WRITE; {@code action} (if any) runs once part, but not all, of it has completed
     * (asserted from the paths' completed-byte counters). Checks the completion and every byte.
     */
    void write(Action action) throws Exception {
        long before = SoftFabric.completedBytes(client);
        long seed = post();
        if (action != null) {
            SoftFabric.awaitProgress(client, before);
            action.run();
            long done = SoftFabric.completedBytes(client) - before;
            assertTrue("the action ran mid-transfer (" + done + " of " + bytes + " bytes done)", done < bytes);
        }
        check(seed, SoftFabric.await(client));
    }

    /** Checks that {@code c} is the successful completion of MP_WRITE {@code seed}, and every byte. */
    private void check(long seed, MpCompletion c) {
        assertEquals(c.toString(), seed, c.wrId());
        assertEquals("MP_WRITE " + seed + " with " + client.loadBalancer() + ": " + c, MpStatus.SUCCESS,
                c.status());
        assertEquals(MpOpcode.WRITE, c.opcode());
        assertEquals(bytes, c.byteLength());
        SoftFabric.assertSameBytes("MP_WRITE " + seed, clientBuf, 0, serverBuf, 0, bytes);
    }
}
