package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.junit.Test;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;

/**
 * A whole multipath transfer through the published services only: the soft RNIC configured by
 * ConfigurationAdmin as a four-path in-process fabric, a connection made by the
 * {@code MultipathConnector} service, MP_WRITE of 64 MiB and MP_SEND/MP_RECV of a small and a
 * large message, every byte checked, then disconnect.
 */
public class MultipathTransferTest extends VirtuosoOsgiTestSupport {

    @Test
    public void writesAndSendsEveryByteOverFourFabricPaths() throws Exception {
        try (SoftFabric fabric = new SoftFabric(this)) {
            InFramework.writesAndSendsEveryByte(fabric);
        }
    }

    /** The test body; a class of its own, so the host's JUnit never loads the API types it uses. */
    private static final class InFramework {
        private static final int PATHS = 4;
        private static final int WRITE_BYTES = 64 << 20;
        private static final int SMALL_MESSAGE = 1000;
        private static final int LARGE_MESSAGE = 8 << 20;

        static void writesAndSendsEveryByte(SoftFabric fabric) throws Exception {
            fabric.configureFabric("rate=unlimited", PATHS);
            MultipathConnection[] cs = fabric.connect(SoftFabric.softOptions());
            MultipathConnection client = cs[0];
            MultipathConnection server = cs[1];
            EnumSet<Access> all = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            ByteBuffer clientBuf = ByteBuffer.allocateDirect(WRITE_BYTES);
            ByteBuffer serverBuf = ByteBuffer.allocateDirect(WRITE_BYTES);
            MemoryRegion clientMr = client.register(clientBuf, all);
            MemoryRegion serverMr = server.register(serverBuf, all);

            SoftFabric.fill(clientBuf, 0, WRITE_BYTES, 1);
            client.postWrite(7, clientMr, 0, WRITE_BYTES, serverMr.remote(), 0);
            MpCompletion write = SoftFabric.await(client);
            assertEquals(write.toString(), 7, write.wrId());
            assertEquals(write.toString(), MpStatus.SUCCESS, write.status());
            assertEquals(MpOpcode.WRITE, write.opcode());
            assertEquals(WRITE_BYTES, write.byteLength());
            assertEquals("64 MiB in 1 MiB chunks spread over every path: " + write, PATHS, write.paths());
            SoftFabric.assertSameBytes("MP_WRITE", clientBuf, 0, serverBuf, 0, WRITE_BYTES);
            for (PathStats path : client.pathStats()) {
                assertTrue("path carried chunks: " + path, path.chunksCompleted() > 0);
                assertEquals("no chunk failed: " + path, 0, path.chunksFailed());
            }

            // the server posts both receives first; the small one travels whole, the large one split
            int largeAt = 1 << 20;
            serverBuf.clear();
            SoftFabric.fill(serverBuf, 0, WRITE_BYTES, 99);
            server.postRecv(100, serverMr, 0, SMALL_MESSAGE);
            server.postRecv(101, serverMr, largeAt, LARGE_MESSAGE);
            SoftFabric.fill(clientBuf, 0, SMALL_MESSAGE, 2);
            SoftFabric.fill(clientBuf, largeAt, LARGE_MESSAGE, 3);
            client.postSend(200, clientMr, 0, SMALL_MESSAGE);
            client.postSend(201, clientMr, largeAt, LARGE_MESSAGE);
            for (int i = 0; i < 2; i++) {
                MpCompletion send = SoftFabric.await(client);
                assertEquals(send.toString(), MpStatus.SUCCESS, send.status());
                assertEquals(MpOpcode.SEND, send.opcode());
            }
            MpCompletion small = SoftFabric.await(server);
            assertEquals("receive completions in send order: " + small, 100, small.wrId());
            assertEquals(small.toString(), MpStatus.SUCCESS, small.status());
            assertEquals(MpOpcode.RECV, small.opcode());
            assertEquals(SMALL_MESSAGE, small.byteLength());
            MpCompletion large = SoftFabric.await(server);
            assertEquals(large.toString(), 101, large.wrId());
            assertEquals(large.toString(), MpStatus.SUCCESS, large.status());
            assertEquals(LARGE_MESSAGE, large.byteLength());
            assertTrue("the large message was split over several paths: " + large, large.paths() > 1);
            SoftFabric.assertSameBytes("small MP_SEND", clientBuf, 0, serverBuf, 0, SMALL_MESSAGE);
            SoftFabric.assertSameBytes("large MP_SEND", clientBuf, largeAt, serverBuf, largeAt, LARGE_MESSAGE);

            clientMr.close();
            serverMr.close();
            client.disconnect(5, TimeUnit.SECONDS);
            assertEquals(ConnectionState.CLOSED, client.state());
        }
    }
}
