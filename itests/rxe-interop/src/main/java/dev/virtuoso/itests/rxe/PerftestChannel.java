package dev.virtuoso.itests.rxe;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * perftest's out-of-band TCP exchange without rdma_cm (perftest_communication.c, "ethernet"
 * functions): every exchange has the same size both ways; the client (the side given a server
 * name) writes first and then reads, the server reads first and then writes. Each message is one
 * {@code write()}, because perftest reads each with a single {@code read()} of the exact size.
 *
 * <p>Not thread-safe: one session thread owns a channel.
 */
public final class PerftestChannel implements AutoCloseable {
    /** perftest's default TCP port. */
    public static final int DEFAULT_PORT = 18515;
    /** Version this peer announces: perftest refuses peers older than 5.70. */
    public static final String VERSION = "6.06";

    private final Socket socket;
    private final boolean client;
    private final DataInputStream in;
    private final OutputStream out;

    private PerftestChannel(Socket socket, boolean client, int readTimeoutMillis) throws IOException {
        this.socket = socket;
        this.client = client;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(readTimeoutMillis);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Connects as perftest's client, retrying while the server is not listening yet.
     *
     * @param server the perftest server's address and port
     * @param local local address to connect from (the path's vNIC), or null
     * @param timeoutMillis how long to keep trying to connect, and the read timeout afterwards
     * @return the channel
     * @throws IOException if no connection could be made in time
     */
    public static PerftestChannel connect(InetSocketAddress server, InetAddress local, int timeoutMillis)
            throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            Socket s = new Socket();
            try {
                if (local != null) {
                    s.bind(new InetSocketAddress(local, 0));
                }
                s.connect(server, 2000);
                return new PerftestChannel(s, true, timeoutMillis);
            } catch (ConnectException | NoRouteToHostException | SocketTimeoutException e) {
                s.close();
                if (System.nanoTime() > deadline) {
                    throw new IOException("perftest server " + server + " not reachable in "
                            + timeoutMillis + " ms", e);
                }
                sleep(200);
            }
        }
    }

    /**
     * Accepts one perftest client, as perftest's server does.
     *
     * @param listen address and port to listen on
     * @param timeoutMillis how long to wait for the client, and the read timeout afterwards
     * @return the channel
     * @throws IOException if no client came in time
     */
    public static PerftestChannel accept(InetSocketAddress listen, int timeoutMillis) throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(listen, 1);
            ss.setSoTimeout(timeoutMillis);
            return new PerftestChannel(ss.accept(), false, timeoutMillis);
        }
    }

    /**
     * Listens now and accepts later, so a client can connect as soon as the socket is bound.
     *
     * @param listen address and port
     * @return the bound server socket (owned by the caller)
     * @throws IOException if it cannot be bound
     */
    public static ServerSocket listen(InetSocketAddress listen) throws IOException {
        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(listen, 1);
        return ss;
    }

    /**
     * @param ss a socket from {@link #listen}
     * @param timeoutMillis accept and read timeout
     * @return the channel of the first client
     * @throws IOException if no client came in time
     */
    public static PerftestChannel accept(ServerSocket ss, int timeoutMillis) throws IOException {
        ss.setSoTimeout(timeoutMillis);
        return new PerftestChannel(ss.accept(), false, timeoutMillis);
    }

    /** @return true for perftest's client role (writes first) */
    public boolean isClient() {
        return client;
    }

    /**
     * One symmetric exchange ({@code ctx_xchg_data_ethernet}).
     *
     * @param mine what this side sends
     * @return what the other side sent, of the same length
     * @throws IOException on a socket error, a timeout or a closed connection
     */
    public byte[] exchange(byte[] mine) throws IOException {
        byte[] theirs = new byte[mine.length];
        if (client) {
            out.write(mine);
            out.flush();
            in.readFully(theirs);
        } else {
            in.readFully(theirs);
            out.write(mine);
            out.flush();
        }
        return theirs;
    }

    /**
     * {@code exchange_versions}: 16-byte NUL-padded version strings.
     *
     * @return the peer's version text
     * @throws IOException on a socket error
     */
    public String exchangeVersions() throws IOException {
        byte[] theirs = exchange(Arrays.copyOf(VERSION.getBytes(StandardCharsets.US_ASCII), 16));
        return cString(theirs);
    }

    /**
     * {@code check_sys_data}: cycle buffer (page size) then cache line size, each a 32-bit
     * big-endian int. perftest then uses the larger of both sides' values.
     *
     * @param cycleBuffer this side's cycle buffer
     * @param cacheLine this side's cache line size
     * @return the peer's {cycle buffer, cache line size}
     * @throws IOException on a socket error
     */
    public int[] exchangeSysData(int cycleBuffer, int cacheLine) throws IOException {
        int a = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cycleBuffer).array())).getInt();
        int b = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cacheLine).array())).getInt();
        return new int[] {a, b};
    }

    /**
     * {@code check_mtu}: the {@code enum ibv_mtu} value (1 = 256 ... 5 = 4096) as a decimal
     * string in 2 bytes (peers from version 5.31 on).
     *
     * @param mtuEnum this side's MTU enum
     * @return the peer's MTU enum
     * @throws IOException on a socket error or a malformed value
     */
    public int exchangeMtu(int mtuEnum) throws IOException {
        byte[] mine = new byte[2];
        mine[0] = (byte) ('0' + mtuEnum);
        String theirs = cString(exchange(mine));
        try {
            return Integer.parseInt(theirs);
        } catch (NumberFormatException e) {
            throw new IOException("bad MTU from perftest: '" + theirs + "'", e);
        }
    }

    /**
     * {@code ctx_hand_shake}: exchanges QP records; also perftest's synchronisation barrier.
     *
     * @param mine this side's record
     * @return the peer's record
     * @throws IOException on a socket error or a malformed record
     */
    public PerftestDest handShake(PerftestDest mine) throws IOException {
        try {
            return PerftestDest.decode(exchange(mine.encode()));
        } catch (IllegalArgumentException e) {
            throw new IOException("malformed record from perftest", e);
        }
    }

    /**
     * {@code xchg_bw_reports} for peers from version 5.33 on, without per-port reports: size and
     * iterations as 64-bit big-endian, then peak BW, average BW and message rate as big-endian
     * doubles, each its own exchange.
     *
     * @param mine this side's report
     * @return the peer's report
     * @throws IOException on a socket error
     */
    public BwReport exchangeBwReport(BwReport mine) throws IOException {
        long size = ByteBuffer.wrap(exchange(longBytes(mine.size()))).getLong();
        long iters = ByteBuffer.wrap(exchange(longBytes(mine.iterations()))).getLong();
        double peak = ByteBuffer.wrap(exchange(doubleBytes(mine.peakMBps()))).getDouble();
        double avg = ByteBuffer.wrap(exchange(doubleBytes(mine.averageMBps()))).getDouble();
        double rate = ByteBuffer.wrap(exchange(doubleBytes(mine.messageRateMpps()))).getDouble();
        return new BwReport(size, iters, peak, avg, rate);
    }

    /**
     * {@code ctx_close_connection}: a last handshake, then "done" and close. Neither side reads the
     * "done".
     *
     * @param mine this side's record
     * @throws IOException on a socket error
     */
    public void closeConnection(PerftestDest mine) throws IOException {
        handShake(mine);
        out.write("done\0".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static byte[] doubleBytes(double v) {
        return ByteBuffer.allocate(8).putDouble(v).array();
    }

    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
