package dev.virtuoso.itests.rxe;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.MpConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One multipath connection between the guest and the host, byte-verified on the side that receives
 * the data. Buffer of each side (S = size): W = [0, 4S) WRITE target/source, R = [4S, 5S) READ
 * source (server, a pattern) / target (client), V = [5S, 6S) SEND source / receive area (8
 * messages of S/8), then a control area. The client waits for the server's HELLO (its region as a
 * {@link RemoteMemory}), then runs MP_WRITE, MP_READ and 8 MP_SENDs (with {@code cut}: four WRITEs
 * of S and the SENDs at once, and the guest removes its address of the cut path while they run;
 * once the address is gone the client writes the four WRITEs again, so the cut path surely carries
 * chunks that cannot arrive: a guest client right after its {@code ip addr del}, a host client when
 * the guest server's CUT notice, a SEND posted after its {@code ip addr del}, arrives), then sends DONE. The server then checks what it received. Both sides derive the patterns from the
 * case label, so no data is exchanged for checking. Lines: {@code MP-CHECK label what ok|FAIL},
 * {@code MP-RATE label op MiB/s}, {@code MP-PATHS label ...}.
 */
final class MpCase {
    /** Command-line settings of one side. */
    record Settings(boolean guest, String provider, String device, List<InetAddress> localIps,
            List<InetAddress> remoteIps, int size, int port, String netdev, int ackTimeout, int waitSeconds) {
    }

    private static final int SENDS = 8;
    private static final long DONE_MAGIC = 0x444f4e455f4d5021L;
    private static final long CUT_MAGIC = 0x4355545f50415448L;
    private static final long CUT_ID = 300;
    private static final EnumSet<Access> ALL = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);

    private final Connector connector;
    private final Settings s;
    private final MpPlanCase c;
    private final int index;
    private final PrintStream out;
    private final boolean client;
    private final int size;
    private final int ctrl;
    private boolean ok = true;
    private long nextId = 1;

    MpCase(Connector connector, Settings s, MpPlanCase c, int index, PrintStream out) {
        this.connector = connector;
        this.s = s;
        this.c = c;
        this.index = index;
        this.out = out;
        this.client = s.guest() == c.guestClient();
        this.size = s.size();
        this.ctrl = 6 * size;
    }

    boolean run() {
        out.println("MP-LOG case " + c.label() + " starts: " + (client ? "client" : "server") + ", " + c.paths()
                + " paths, " + c.loadBalancer() + "/" + c.congestionAvoidance() + (c.cutPath() >= 0 ? ", cut path "
                + c.cutPath() : ""));
        ConnectOptions opts = options();
        MultipathListener listener = null;
        MultipathConnection conn = null;
        boolean cutDone = false;
        try {
            if (client) {
                conn = connect(opts);
            } else {
                listener = connector.listen(new InetSocketAddress(s.localIps().get(0), s.port() + index), opts);
                conn = listener.accept(s.waitSeconds(), TimeUnit.SECONDS);
                check("accepted", conn != null);
                if (conn == null) {
                    return false;
                }
            }
            check("paths up " + conn.pathStats().size(), conn.pathStats().size() == c.paths());
            ByteBuffer buf = ByteBuffer.allocateDirect(ctrl + 4096);
            MemoryRegion mr = conn.register(buf, ALL);
            cutDone = client ? runClient(conn, mr, buf) : runServer(conn, mr, buf);
            for (PathStats p : conn.pathStats()) {
                out.println("MP-PATHS " + c.label() + " path " + p.pathId() + " " + p.localAddress().getHostAddress()
                        + "->" + p.remoteAddress().getHostAddress() + " " + p.state() + " bytes " + p.bytesCompleted()
                        + " chunks " + p.chunksCompleted() + " failed " + p.chunksFailed() + " retransmissions "
                        + p.retransmissions());
            }
            if (!ok && conn instanceof MpConnection m) {
                out.println("MP-LOG " + c.label() + " connection " + m.describe());
            }
            if (c.cutPath() >= 0) {
                PathStats cut = conn.pathStats().get(c.cutPath());
                check("cut path " + c.cutPath() + " left the placement (" + cut.state() + ", " + cut.chunksFailed()
                        + " chunks failed)", cut.state() != PathState.UP || cut.chunksFailed() > 0);
            }
            if (client) {
                conn.disconnect(10, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            check("no exception: " + e, false);
            e.printStackTrace(out);
        } finally {
            if (conn != null) {
                conn.close();
            }
            if (listener != null) {
                listener.close();
            }
            if (cutDone) {
                ip("add", c.cutPath());
            }
        }
        return ok;
    }

    private ConnectOptions options() {
        boolean cut = c.cutPath() >= 0;
        ConnectOptions.Builder b = ConnectOptions.builder().provider(s.provider()).device(s.device())
                .localAddresses(s.localIps().subList(0, c.paths())).handshakeTimeout(Duration.ofSeconds(60))
                .providerTimeout(Duration.ofSeconds(10)).failoverTimeout(Duration.ofSeconds(60))
                .chunkSize(256 * 1024).loadBalancer(c.loadBalancer()).congestionAvoidance(c.congestionAvoidance())
                // 23 (34 s): emulation stalls must not look like loss (docs/rxe-interop.md, pitfalls);
                // a cut path is detected within (3+1) x 1.07 s
                .ackTimeout(cut ? 18 : s.ackTimeout()).retryCount(cut ? 3 : 7);
        if (client) {
            b.remoteAddresses(s.remoteIps().subList(0, c.paths()));
        }
        return b.build();
    }

    /** Connects, retrying while the peer's listener is not up yet. */
    private MultipathConnection connect(ConnectOptions opts) throws Exception {
        InetSocketAddress to = new InetSocketAddress(s.remoteIps().get(0), s.port() + index);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(s.waitSeconds());
        while (true) {
            try {
                return connector.connect(to, opts);
            } catch (VirtuosoException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    private boolean runServer(MultipathConnection conn, MemoryRegion mr, ByteBuffer buf) throws Exception {
        fill(buf, 4 * size, size, seed('R'));
        int msg = size / SENDS;
        for (int i = 0; i < SENDS; i++) {
            conn.postRecv(100 + i, mr, 5L * size + (long) i * msg, msg);
        }
        conn.postRecv(200, mr, ctrl, 64);
        mr.remote().writeTo(buf.slice(ctrl + 64, RemoteMemory.ENCODED_BYTES));
        conn.postSend(nextId++, mr, ctrl + 64, RemoteMemory.ENCODED_BYTES);
        expect(conn, MpOpcode.SEND, RemoteMemory.ENCODED_BYTES);
        boolean cut = c.cutPath() >= 0 && s.guest();
        if (cut) {
            Thread.sleep(300);
            ip("del", c.cutPath());
            // tells the client the path is gone, so it sends WRITEs across the cut (its own traffic
            // may have ended before the address went: ip runs slowly in an emulated guest)
            buf.putLong(ctrl + 128, CUT_MAGIC);
            conn.postSend(CUT_ID, mr, ctrl + 128, 8);
        }
        int receives = 0;
        for (boolean cutSent = !cut; receives < SENDS || !cutSent; ) {
            MpCompletion done = await(conn);
            if (done.wrId() == CUT_ID) {
                check("CUT notice sent (" + done + ")", done.status() == MpStatus.SUCCESS && done.opcode() == MpOpcode.SEND);
                cutSent = true;
                continue;
            }
            check("receive " + receives + " in order, " + msg + " bytes (" + done + ")", done.wrId() == 100 + receives
                    && done.status() == MpStatus.SUCCESS && done.opcode() == MpOpcode.RECV && done.byteLength() == msg);
            receives++;
        }
        MpCompletion done = await(conn);
        check("DONE received (" + done + ", magic " + Long.toHexString(buf.getLong(ctrl)) + ")", done.wrId() == 200 && done.status() == MpStatus.SUCCESS && done.byteLength() == 8
                && buf.getLong(ctrl) == DONE_MAGIC);
        int written = c.cutPath() >= 0 ? 4 * size : size;
        check("MP_WRITE data (" + written + " bytes)", same(buf, 0, written, seed('W')));
        check("MP_SEND data (" + SENDS + " x " + msg + " bytes)", same(buf, 5 * size, size, seed('V')));
        return cut;
    }

    private boolean runClient(MultipathConnection conn, MemoryRegion mr, ByteBuffer buf) throws Exception {
        conn.postRecv(nextId++, mr, ctrl, 64);
        MpCompletion hello = await(conn);
        check("HELLO received", hello.status() == MpStatus.SUCCESS && hello.byteLength() == RemoteMemory.ENCODED_BYTES);
        RemoteMemory remote = RemoteMemory.readFrom(buf.slice(ctrl, RemoteMemory.ENCODED_BYTES));
        int msg = size / SENDS;
        fill(buf, 5 * size, size, seed('V'));
        boolean cut = c.cutPath() >= 0;
        if (cut && !s.guest()) {
            conn.postRecv(nextId++, mr, ctrl + 128, 64);
        }
        if (!cut) {
            fill(buf, 0, size, seed('W'));
            long t0 = System.nanoTime();
            conn.postWrite(nextId++, mr, 0, size, remote, 0);
            MpCompletion w = expect(conn, MpOpcode.WRITE, size);
            rate("MP_WRITE", size, t0);
            check("MP_WRITE used all " + c.paths() + " paths (" + w.paths() + ")", w.paths() == c.paths());
            t0 = System.nanoTime();
            for (int i = 0; i < SENDS; i++) {
                conn.postSend(nextId++, mr, 5L * size + (long) i * msg, msg);
            }
            for (int i = 0; i < SENDS; i++) {
                expect(conn, MpOpcode.SEND, msg);
            }
            rate("MP_SEND", size, t0);
        } else {
            fill(buf, 0, 4 * size, seed('W'));
            long t0 = System.nanoTime();
            for (int i = 0; i < 4; i++) {
                conn.postWrite(nextId++, mr, (long) i * size, size, remote, (long) i * size);
            }
            for (int i = 0; i < SENDS; i++) {
                conn.postSend(nextId++, mr, 5L * size + (long) i * msg, msg);
            }
            int expected = 4 + SENDS;
            // a host client waits for the guest server's CUT notice, which may come after its traffic
            boolean cutSeen = s.guest();
            if (s.guest()) {
                Thread.sleep(300);
                ip("del", c.cutPath());
                expected += writeAcrossCut(conn, mr, remote);
            }
            for (int i = 0; i < expected || !cutSeen; i++) {
                MpCompletion d = await(conn);
                if (d.opcode() == MpOpcode.RECV) { // the server's CUT notice (host client only)
                    check("CUT notice received (" + d + ")", d.status() == MpStatus.SUCCESS && d.byteLength() == 8
                            && buf.getLong(ctrl + 128) == CUT_MAGIC);
                    cutSeen = true;
                    expected += 1 + writeAcrossCut(conn, mr, remote);
                    continue;
                }
                check("completion " + i + " across the cut (" + d + ")", d.status() == MpStatus.SUCCESS);
            }
            rate("MP_WRITE+MP_SEND across the cut", 5L * size, t0);
        }
        long t0 = System.nanoTime();
        conn.postRead(nextId++, mr, 4L * size, size, remote, 4L * size);
        expect(conn, MpOpcode.READ, size);
        rate("MP_READ", size, t0);
        check("MP_READ data (" + size + " bytes)", same(buf, 4 * size, size, seed('R')));
        buf.putLong(ctrl + 64, DONE_MAGIC);
        conn.postSend(nextId++, mr, ctrl + 64, 8);
        expect(conn, MpOpcode.SEND, 8);
        return cut && s.guest();
    }

    /**
     * Posts WRITEs of the whole W area again once the cut path's address is gone, so the cut path
     * certainly gets chunks that cannot arrive (round robin spreads every WRITE over all paths).
     *
     * @return the number of completions to expect
     */
    private int writeAcrossCut(MultipathConnection conn, MemoryRegion mr, RemoteMemory remote) throws VirtuosoException {
        out.println("MP-LOG writes after the cut at " + System.currentTimeMillis());
        for (int i = 0; i < 4; i++) {
            conn.postWrite(nextId++, mr, (long) i * size, size, remote, (long) i * size);
        }
        return 4;
    }

    /** Removes or restores the guest's address of a path (ip addr del/add ADDR/24 dev NETDEV). */
    private void ip(String op, int path) {
        String addr = s.localIps().get(path).getHostAddress() + "/24";
        try {
            Process p = new ProcessBuilder("ip", "addr", op, addr, "dev", s.netdev()).inheritIO().start();
            boolean exited = p.waitFor(30, TimeUnit.SECONDS);
            check("ip addr " + op + " " + addr, exited && p.exitValue() == 0);
            out.println("MP-LOG ip addr " + op + " " + addr + " at " + System.currentTimeMillis());
            if (op.equals("add")) {
                check("RoCE v2 GID of " + addr + " back", awaitGid(s.localIps().get(path)));
            }
        } catch (IOException | InterruptedException e) {
            check("ip addr " + op + " " + addr + ": " + e, false);
        }
    }

    /** The kernel adds a GID for an address asynchronously: waits (10 s) until one is listed. */
    private static boolean awaitGid(InetAddress ip) throws IOException, InterruptedException {
        byte[] a = ip.getAddress();
        String gid = String.format("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a[0], a[1], a[2], a[3]);
        for (int i = 0; i < 100; i++) {
            // /sys/class/infiniband/<device>/ports/<port>/gids/<index>
            for (Path dev : list(Path.of("/sys/class/infiniband"))) {
                for (Path port : list(dev.resolve("ports"))) {
                    for (Path g : list(port.resolve("gids"))) {
                        try {
                            if (Files.readString(g).trim().equals(gid)) {
                                return true;
                            }
                        } catch (IOException e) {
                            // an unreadable entry (being removed): not the one we wait for
                        }
                    }
                }
            }
            Thread.sleep(100);
        }
        return false;
    }

    private static List<Path> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    private MpCompletion expect(MultipathConnection conn, MpOpcode op, long bytes) throws InterruptedException {
        MpCompletion d = await(conn);
        check(op + " of " + bytes + " bytes completed (" + d + ")", d.status() == MpStatus.SUCCESS && d.opcode() == op
                && d.byteLength() == bytes);
        return d;
    }

    private static MpCompletion await(MultipathConnection conn) throws InterruptedException {
        MpCompletion d = new MpCompletion();
        if (!conn.awaitCompletion(d, 180, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no completion within 180 s: " + conn.pathStats());
        }
        return d;
    }

    private void rate(String what, long bytes, long t0) {
        double secs = (System.nanoTime() - t0) / 1e9;
        out.printf("MP-RATE %s %s %d bytes %.3f s %.1f Mbit/s%n", c.label(), what, bytes, secs, bytes * 8 / secs / 1e6);
    }

    private void check(String what, boolean passed) {
        out.println("MP-CHECK " + c.label() + " " + what + " " + (passed ? "ok" : "FAIL"));
        ok &= passed;
    }

    private long seed(char region) {
        return c.label().hashCode() * 1_000_003L + region;
    }

    /** Deterministic bytes from a seed (xorshift), the same on both sides. */
    static void fill(ByteBuffer b, int off, int len, long seed) {
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < len; i++) {
            if ((i & 7) == 0) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            b.put(off + i, (byte) (x >>> (8 * (i & 7))));
        }
    }

    /** @return whether [off, off+len) holds {@link #fill}'s bytes for the seed */
    static boolean same(ByteBuffer b, int off, int len, long seed) {
        ByteBuffer expected = ByteBuffer.allocate(len);
        fill(expected, 0, len, seed);
        return b.slice(off, len).mismatch(expected) == -1;
    }
}
