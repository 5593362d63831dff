package dev.virtuoso.verbs.soft.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;

/**
 * Throughput of one RC QP of the soft RNIC on the UDP wire, between two processes (run each in its
 * own network namespace, or both on loopback): RDMA WRITE and READ of each message size, with
 * several WRs outstanding, for a fixed time per size. A command, not a test; see
 * {@code bundles/verbs-soft/bench/throughput.sh}.
 *
 * <pre>
 * server ADDRESS UDP_PORT CONTROL_PORT
 * client ADDRESS UDP_PORT SERVER_ADDRESS CONTROL_PORT SECONDS SIZE[,SIZE...] OP[,OP...]
 * </pre>
 * Sizes take k/m suffixes (binary); ops are {@code write}, {@code read}. The client prints one
 * {@code RESULT op=.. size=.. gbps=.. retransmitted=.. timeouts=..} line per measurement, or
 * {@code FAILED} with the error
 * completion and stops (the QP is in ERR). {@code -Dbench.timeout=N} sets the QP timeout exponent.
 */
public final class SoftThroughputBench {
    private static final int ACCESS = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ;
    private static final long IN_FLIGHT_BYTES = 16L << 20;
    private static final int MAX_DEPTH = 64;
    /** QP timeout exponent (4.096 us x 2^t); 14 = 67 ms as in most RDMA applications. */
    private static final int TIMEOUT = Integer.getInteger("bench.timeout", 14);

    private SoftThroughputBench() {
    }

    /** One end: device, PD, CQ, QP and a registered buffer. */
    private static final class End implements AutoCloseable {
        final SoftVerbsProvider provider;
        final IbvContext ctx;
        final IbvPd pd;
        final IbvCq cq;
        final IbvQp qp;
        final IbvMr mr;
        final int psn = new SplittableRandom(System.nanoTime()).nextInt(1 << 24);

        End(String address, int udpPort, int bufferBytes) throws Exception {
            // -Dvirtuoso.bench.icrc=off measures the cost of receive-side ICRC checking (on by default)
            boolean icrc = !"off".equals(System.getProperty("virtuoso.bench.icrc", "on"));
            provider = new SoftVerbsProvider(SoftRnicConfig.builder("bench").addressLiterals(address)
                    .udpPort(udpPort).icrcCheck(icrc).build());
            System.out.println("ICRC check " + (icrc ? "on" : "off"));
            ctx = provider.openDevice("bench");
            pd = ctx.allocPd();
            cq = ctx.createCq(4096, null);
            qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(1024).maxRecvWr(16)
                    .maxSendSge(1).maxRecvSge(1));
            ByteBuffer buf = ByteBuffer.allocateDirect(bufferBytes);
            SplittableRandom r = new SplittableRandom(udpPort);
            for (int i = 0; i + 8 <= bufferBytes; i += 8) {
                buf.putLong(i, r.nextLong());
            }
            mr = pd.regMr(buf, ACCESS);
        }

        void connect(InetAddress peer, int peerPort, int peerQpn, int peerPsn) throws Exception {
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                    .qpAccessFlags(ACCESS), IbvQpAttr.MASK_INIT);
            IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.MTU_4096)
                    .destQpNum(peerQpn).rqPsn(peerPsn).maxDestRdAtomic(16).minRnrTimer(12);
            rtr.ahAttr().dgid(peer).sgidIndex(0).udpPort(peerPort);
            qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(psn).timeout(TIMEOUT).retryCnt(7)
                    .rnrRetry(7).maxRdAtomic(16), IbvQpAttr.MASK_RTS);
        }

        @Override
        public void close() {
            provider.close();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("server")) {
            server(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        } else if (args.length == 8 && args[0].equals("client")) {
            List<Integer> sizes = new ArrayList<>();
            for (String s : args[6].split(",")) {
                sizes.add(parseSize(s));
            }
            client(args[1], Integer.parseInt(args[2]), args[3], Integer.parseInt(args[4]),
                    Double.parseDouble(args[5]), sizes, List.of(args[7].split(",")));
        } else {
            System.err.println("usage: server ADDRESS UDP_PORT CONTROL_PORT\n"
                    + "       client ADDRESS UDP_PORT SERVER_ADDRESS CONTROL_PORT SECONDS SIZES OPS");
            System.exit(2);
        }
    }

    private static int parseSize(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        int unit = t.endsWith("k") ? 1 << 10 : t.endsWith("m") ? 1 << 20 : 1;
        return Integer.parseInt(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    }

    private static void server(String address, int udpPort, int controlPort) throws Exception {
        try (ServerSocket listener = new ServerSocket()) {
            listener.bind(new InetSocketAddress(InetAddress.getByName(address), controlPort));
            System.out.println("READY " + address + ":" + controlPort);
            listener.setSoTimeout(120_000);
            try (Socket s = listener.accept()) {
                s.setSoTimeout(3_600_000);
                DataInputStream in = new DataInputStream(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                String peer = in.readUTF();
                int peerPort = in.readInt();
                int peerQpn = in.readInt();
                int peerPsn = in.readInt();
                int bufferBytes = in.readInt();
                try (End end = new End(address, udpPort, bufferBytes)) {
                    end.connect(InetAddress.getByName(peer), peerPort, peerQpn, peerPsn);
                    out.writeInt(end.ctx.udpPort());
                    out.writeInt(end.qp.qpNum());
                    out.writeInt(end.psn);
                    out.writeLong(end.mr.address());
                    out.writeInt(end.mr.rkey());
                    out.flush();
                    in.readUTF(); // "done": the client finished
                    System.out.println("server counters " + end.ctx.counters().snapshot());
                }
            }
        }
    }

    private static void client(String address, int udpPort, String serverAddress, int controlPort,
            double seconds, List<Integer> sizes, List<String> ops) throws Exception {
        int maxSize = sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
        try (End end = new End(address, udpPort, maxSize); Socket s = connectWithRetry(serverAddress, controlPort)) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeUTF(address);
            out.writeInt(end.ctx.udpPort());
            out.writeInt(end.qp.qpNum());
            out.writeInt(end.psn);
            out.writeInt(maxSize);
            out.flush();
            int peerPort = in.readInt();
            int peerQpn = in.readInt();
            int peerPsn = in.readInt();
            long remoteAddr = in.readLong();
            int rkey = in.readInt();
            end.connect(InetAddress.getByName(serverAddress), peerPort, peerQpn, peerPsn);
            for (String op : ops) {
                IbvWrOpcode opcode = switch (op.trim().toLowerCase(Locale.ROOT)) {
                    case "write" -> IbvWrOpcode.RDMA_WRITE;
                    case "read" -> IbvWrOpcode.RDMA_READ;
                    default -> throw new IllegalArgumentException("op must be write or read: " + op);
                };
                for (int size : sizes) {
                    try {
                        run(end, opcode, size, remoteAddr, rkey, Math.min(0.5, seconds / 4), false);
                        run(end, opcode, size, remoteAddr, rkey, seconds, true);
                    } catch (IllegalStateException e) {
                        // the QP is in ERR now: report and stop, the server prints its counters
                        System.out.println("FAILED " + e.getMessage());
                        System.out.println("client counters " + end.ctx.counters().snapshot());
                        out.writeUTF("done");
                        out.flush();
                        return;
                    }
                }
            }
            System.out.println("client counters " + end.ctx.counters().snapshot());
            out.writeUTF("done");
            out.flush();
        }
    }

    private static Socket connectWithRetry(String host, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(InetAddress.getByName(host), port), 2000);
                s.setSoTimeout(3_600_000);
                return s;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static void run(End end, IbvWrOpcode opcode, int size, long remoteAddr, int rkey,
            double seconds, boolean report) throws Exception {
        int depth = (int) Math.max(2, Math.min(MAX_DEPTH, IN_FLIGHT_BYTES / size));
        IbvSendWr wr = new IbvSendWr().opcode(opcode).sendFlags(IbvSendFlags.SIGNALED)
                .remoteAddr(remoteAddr).rkey(rkey).numSge(1);
        wr.sge(0).set(end.mr.address(), size, end.mr.lkey());
        IbvWc[] wcs = new IbvWc[64];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWc();
        }
        long retransmitsBefore = end.ctx.counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
        long timeoutsBefore = end.ctx.counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS);
        long start = System.nanoTime();
        long end0 = start + (long) (seconds * 1e9);
        long posted = 0;
        long completed = 0;
        long idle = 0;
        while (true) {
            long now = System.nanoTime();
            boolean stop = now - end0 >= 0;
            while (!stop && posted - completed < depth) {
                end.qp.postSend(wr.wrId(posted));
                posted++;
            }
            int n = end.cq.pollCq(wcs, wcs.length);
            for (int i = 0; i < n; i++) {
                if (wcs[i].status() != IbvWcStatus.SUCCESS) {
                    throw new IllegalStateException(opcode + " " + size + " failed: " + wcs[i]);
                }
            }
            completed += n;
            if (stop && completed == posted) {
                break;
            }
            if (n == 0) {
                idle++;
                LockSupport.parkNanos(20_000);
            }
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        if (report) {
            double gbps = completed * (double) size * 8 / elapsed / 1e9;
            long retransmits = end.ctx.counters().get(VerbsCounter.RETRANSMITTED_PACKETS) - retransmitsBefore;
            long timeouts = end.ctx.counters().get(VerbsCounter.RETRANSMIT_TIMEOUTS) - timeoutsBefore;
            System.out.printf(Locale.ROOT,
                    "RESULT op=%s size=%d depth=%d messages=%d seconds=%.3f gbps=%.3f retransmitted=%d"
                            + " timeouts=%d%n",
                    opcode == IbvWrOpcode.RDMA_WRITE ? "write" : "read", size, depth, completed, elapsed,
                    gbps, retransmits, timeouts);
        }
    }
}
