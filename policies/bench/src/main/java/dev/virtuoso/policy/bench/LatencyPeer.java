package dev.virtuoso.policy.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.RemoteMemory;

/**
 * One end of the latency bench across two processes (the {@code veth} wire, {@link VethLatency}):
 * the server answers, the client measures and prints the CSV rows. Both run the same plan in the
 * same order (TCP, raw QP, then the multipath rows as {@link LatencyBench} does in one process) and
 * meet on a TCP control socket for what the two ends must exchange: ports, QP numbers, remote
 * regions, "ready" and "done", and the server's engine counters (agent parks, CQ events).
 *
 * <pre>
 * LatencyPeer server|client ITERATIONS SPLIT_THRESHOLD SPIN_US[,...] LOCAL_ADDRS PEER_ADDRS CONTROL_PORT
 * </pre>
 * (addresses comma-separated, path i over the i-th of each). The server prints {@code READY} once
 * it listens on the control port.
 */
public final class LatencyPeer {
    private static final int BARRIER = 0x5A;

    private final boolean server;
    private final LatencyBench.Plan plan;
    private final List<InetAddress> locals;
    private final List<InetAddress> peers;
    private final String device;
    private DataInputStream in;
    private DataOutputStream out;

    LatencyPeer(boolean server, LatencyBench.Plan plan, List<InetAddress> locals, List<InetAddress> peers) {
        this.server = server;
        this.plan = plan;
        this.locals = locals;
        this.peers = peers;
        this.device = server ? "b" : "a";
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7 || !List.of("server", "client").contains(args[0])) {
            System.err.println("usage: LatencyPeer server|client ITERATIONS SPLIT_THRESHOLD SPIN_US[p][,...] LOCAL_ADDRS"
                    + " PEER_ADDRS CONTROL_PORT");
            System.exit(2);
        }
        LatencyBench.Plan plan = new LatencyBench.Plan(Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                LatencyBench.Plan.parseSpins(args[3]));
        LatencyPeer p = new LatencyPeer(args[0].equals("server"), plan, addresses(args[4]), addresses(args[5]));
        p.run(Integer.parseInt(args[6]), System.out);
        System.exit(0);
    }

    static List<InetAddress> addresses(String list) {
        List<InetAddress> out = new ArrayList<>();
        for (String s : list.split(",")) {
            out.add(BenchPair.ip(s));
        }
        return out;
    }

    /** Runs the whole plan against the peer process; the client prints its rows to {@code rows}. */
    void run(int controlPort, PrintStream rows) throws Exception {
        try (Socket control = control(controlPort, rows)) {
            control.setTcpNoDelay(true);
            control.setSoTimeout(120_000);
            in = new DataInputStream(control.getInputStream());
            out = new DataOutputStream(control.getOutputStream());
            tcp(rows);
            qp(rows);
            for (int paths : new int[] {1, 4}) {
                for (LatencyBench.Engine spin : plan.engines()) {
                    mp(rows, paths, spin);
                }
            }
        }
    }

    private Socket control(int port, PrintStream rows) throws Exception {
        if (server) {
            try (ServerSocket ss = new ServerSocket()) {
                ss.bind(new InetSocketAddress(locals.get(0), port));
                ss.setSoTimeout(60_000);
                rows.println("READY");
                rows.flush();
                return ss.accept();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(peers.get(0), port), 5000);
                return s;
            } catch (IOException e) {
                s.close();
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** Both ends meet here (each writes a byte, then reads the other's). */
    private void barrier() throws IOException {
        out.writeByte(BARRIER);
        out.flush();
        if (in.readUnsignedByte() != BARRIER) {
            throw new IOException("control stream out of step");
        }
    }

    private void tcp(PrintStream rows) throws Exception {
        for (int size : LatencyBench.SIZES) {
            int n = LatencyBench.iters(plan.iterations(), size);
            if (server) {
                try (ServerSocket ss = new ServerSocket()) {
                    ss.bind(new InetSocketAddress(locals.get(0), 0));
                    ss.setSoTimeout(30_000);
                    out.writeInt(ss.getLocalPort());
                    out.flush();
                    try (Socket s = ss.accept()) {
                        TcpPingPong.echo(s, size, MpPingPong.total(n));
                    }
                }
            } else {
                int port = in.readInt();
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(peers.get(0), port), 10_000);
                    LatencyBench.report(rows, "veth", "tcp", 1, size, null, TcpPingPong.measure(s, size, n), -1, -1);
                }
            }
            barrier();
        }
    }

    private void qp(PrintStream rows) throws Exception {
        try (LatencyRig rig = LatencyRig.device(device, locals.subList(0, 1),
                new LatencyBench.Engine(0, false))) {
            for (int size : LatencyBench.SIZES) {
                int n = LatencyBench.iters(plan.iterations(), size);
                try (RawQpPingPong.End end = new RawQpPingPong.End(rig.provider, device, size)) {
                    out.writeInt(end.ctx.udpPort());
                    out.writeInt(end.qp.qpNum());
                    out.flush();
                    int peerPort = in.readInt();
                    int peerQpn = in.readInt();
                    end.connect(peers.get(0), peerPort, peerQpn);
                    end.postRecv();
                    barrier(); // both receives posted
                    if (server) {
                        RawQpPingPong.echo(end, MpPingPong.total(n));
                    } else {
                        LatencyBench.report(rows, "veth", "qp", 1, size, null, RawQpPingPong.measure(end, n), -1, -1);
                    }
                    barrier(); // both done before either QP goes away
                }
            }
        }
    }

    private void mp(PrintStream rows, int paths, LatencyBench.Engine engine) throws Exception {
        List<InetAddress> mine = locals.subList(0, paths);
        try (LatencyRig rig = LatencyRig.device(device, mine, engine)) {
            MultipathConnection c;
            var options = plan.options().toBuilder().device(device).localAddresses(mine).build();
            if (server) {
                MultipathListener l = rig.closeLater(rig.connector.listen(new InetSocketAddress(locals.get(0), 0),
                        options));
                out.writeInt(l.localAddress().getPort());
                out.flush();
                c = l.accept(30, TimeUnit.SECONDS);
                if (c == null) {
                    throw new IOException("no multipath connection within 30 s");
                }
            } else {
                c = rig.connector.connect(new InetSocketAddress(peers.get(0), in.readInt()), options);
            }
            rig.closeLater(c);
            for (boolean writeNotify : new boolean[] {false, true}) {
                for (int size : LatencyBench.SIZES) {
                    int n = LatencyBench.iters(plan.iterations(), size);
                    MpPingPong.Side side = new MpPingPong.Side(c, size);
                    ByteBuffer mem = ByteBuffer.allocate(RemoteMemory.ENCODED_BYTES);
                    side.data.remote().writeTo(mem);
                    out.write(mem.array());
                    out.flush();
                    in.readFully(mem.array());
                    side.peerData = RemoteMemory.readFrom(mem.clear());
                    if (server) {
                        side.postRecv(writeNotify);
                    }
                    barrier(); // the echo side's first receive is posted
                    long parks = rig.engines.parks();
                    long events = rig.engines.completionEvents();
                    int rt = MpPingPong.total(n);
                    if (server) {
                        side.echo(rt, writeNotify);
                        out.writeLong(rig.engines.parks() - parks);
                        out.writeLong(rig.engines.completionEvents() - events);
                        out.flush();
                    } else {
                        long[] s = side.measure(n, writeNotify);
                        long myParks = rig.engines.parks() - parks;
                        long myEvents = rig.engines.completionEvents() - events;
                        long theirParks = in.readLong();
                        long theirEvents = in.readLong();
                        LatencyBench.report(rows, "veth", writeNotify ? "mp_write_notify" : "mp_send", paths, size,
                                engine, s, (double) (myParks + theirParks) / rt,
                                (double) (myEvents + theirEvents) / rt);
                    }
                    barrier(); // both done before the regions close
                    side.close();
                }
            }
            barrier(); // both done before the connection closes
        }
    }
}
