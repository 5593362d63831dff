package dev.virtuoso.itests.rxe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Our channel as perftest's server against a raw socket that plays perftest's client byte for byte
 * (perftest_communication.c): the client writes first, every exchange has the same size both ways.
 */
class PerftestChannelTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void serverSideSpeaksPerftestBytes() throws Exception {
        try (ServerSocket ss = PerftestChannel.listen(new InetSocketAddress(LOOPBACK, 0))) {
            CompletableFuture<Void> perftestClient = CompletableFuture.runAsync(() -> playClient(ss.getLocalPort()));
            try (PerftestChannel ch = PerftestChannel.accept(ss, 5000)) {
                assertEquals("6.10", ch.exchangeVersions());
                assertArrayEquals(new int[] {8192, 128}, ch.exchangeSysData(4096, 64));
                assertEquals(3, ch.exchangeMtu(5));
                PerftestDest theirs = ch.handShake(dest(0x22));
                assertEquals(0x11, theirs.qpn());
                BwReport r = ch.exchangeBwReport(new BwReport(65536, 100, 10.5, 9.5, 0.25));
                assertEquals(new BwReport(65536, 100, 1.5, 1.25, 0.5), r);
                ch.closeConnection(dest(0x22));
            }
            perftestClient.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void clientGivesUpWhenNobodyListens() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, LOOPBACK)) {
            port = probe.getLocalPort();
        }
        assertThrows(IOException.class,
                () -> PerftestChannel.connect(new InetSocketAddress(LOOPBACK, port), null, 500));
    }

    private static PerftestDest dest(int qpn) {
        return new PerftestDest(0, 16, qpn, 0x123456, 0xabc, 0x7f0000001000L, PerftestDest.gidOf(LOOPBACK), 0);
    }

    /** perftest's client side of the exchanges used above, with the exact sizes and encodings. */
    private static void playClient(int port) {
        try (Socket s = new Socket(LOOPBACK, port)) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            out.write(Arrays.copyOf("6.10".getBytes(StandardCharsets.US_ASCII), 16));
            assertArrayEquals(Arrays.copyOf("6.06".getBytes(StandardCharsets.US_ASCII), 16), read(in, 16));
            out.write(ByteBuffer.allocate(4).putInt(8192).array());
            assertEquals(4096, ByteBuffer.wrap(read(in, 4)).getInt());
            out.write(ByteBuffer.allocate(4).putInt(128).array());
            assertEquals(64, ByteBuffer.wrap(read(in, 4)).getInt());
            out.write(new byte[] {'3', 0});
            assertArrayEquals(new byte[] {'5', 0}, read(in, 2));
            out.write(dest(0x11).encode());
            assertEquals(0x22, PerftestDest.decode(read(in, PerftestDest.MESSAGE_SIZE)).qpn());
            long[] mine = {65536, 100, Double.doubleToLongBits(1.5), Double.doubleToLongBits(1.25),
                Double.doubleToLongBits(0.5)};
            long[] theirs = {65536, 100, Double.doubleToLongBits(10.5), Double.doubleToLongBits(9.5),
                Double.doubleToLongBits(0.25)};
            for (int i = 0; i < 5; i++) {
                out.write(ByteBuffer.allocate(8).putLong(mine[i]).array());
                assertEquals(theirs[i], ByteBuffer.wrap(read(in, 8)).getLong(), "report field " + i);
            }
            out.write(dest(0x11).encode());
            PerftestDest.decode(read(in, PerftestDest.MESSAGE_SIZE));
            assertArrayEquals("done\0".getBytes(StandardCharsets.US_ASCII), read(in, 5));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] read(DataInputStream in, int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
