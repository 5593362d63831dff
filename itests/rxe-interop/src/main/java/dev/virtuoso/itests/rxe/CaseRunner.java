package dev.virtuoso.itests.rxe;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one {@link PeerCase} against perftest in the guest: one QP per path in one PD with one
 * shared CQ and one memory region, the TCP conversations on session threads, the data phase on the
 * calling thread; then prints what both sides must agree on.
 *
 * <p>Output lines (read by the scenario's host.sh): {@code PEER-DATA <label> <sha256>} for the
 * bytes that moved on each path, {@code PEER-PKTS <label> tx <n> rx <n>} (RoCEv2 packets this
 * device sent and received during the case), {@code PEER-COUNTER <label> <name> <value>},
 * {@code PEER-FAIL <reason>}.
 */
final class CaseRunner {
    /** Outstanding requests per path, perftest's default tx_depth. */
    static final int TX_DEPTH = 128;
    /** Counters that must not move in a clean run: retries, NAKs and every drop reason. */
    static final Set<VerbsCounter> ERROR_COUNTERS = EnumSet.complementOf(EnumSet.of(VerbsCounter.TX_PACKETS,
            VerbsCounter.TX_BYTES, VerbsCounter.RX_PACKETS, VerbsCounter.RX_BYTES));
    private static final int MAX_RECEIVE_SLOTS = 256;

    private final IbvContext context;
    private final PeerSettings settings;
    private final PrintStream out;

    CaseRunner(IbvContext context, PeerSettings settings, PrintStream out) {
        this.context = context;
        this.settings = settings;
        this.out = out;
    }

    /**
     * @param c the case
     * @return true if our side saw no error (the data comparison with the guest is done by the host)
     */
    boolean run(PeerCase c) {
        String label = c.label();
        Map<VerbsCounter, Long> before = context.counters().snapshot();
        boolean ok;
        try {
            ok = runCase(c, label);
        } catch (IOException | RuntimeException e) {
            out.println("PEER-FAIL " + label + ": " + e);
            Throwable cause = e.getCause();
            while (cause != null) {
                out.println("PEER-LOG   caused by " + cause);
                cause = cause.getCause();
            }
            ok = false;
        }
        Map<VerbsCounter, Long> after = context.counters().snapshot();
        out.println("PEER-PKTS " + label + " tx " + delta(before, after, VerbsCounter.TX_PACKETS) + " rx "
                + delta(before, after, VerbsCounter.RX_PACKETS));
        for (VerbsCounter k : VerbsCounter.values()) {
            long d = delta(before, after, k);
            out.println("PEER-COUNTER " + label + " " + k + " " + d);
            if (d != 0 && ERROR_COUNTERS.contains(k)) {
                out.println("PEER-FAIL " + label + ": counter " + k + " = " + d + " (want 0)");
                ok = false;
            }
        }
        return ok;
    }

    private boolean runCase(PeerCase c, String label) throws IOException, VerbsException {
        int size = settings.size();
        int iters = settings.iterations();
        boolean weReceiveSends = c.verb() == PeerCase.Verb.SEND && !c.guestServer();
        int slots = weReceiveSends ? Math.min(iters, MAX_RECEIVE_SLOTS) : 0;
        long slice = QpEndpoint.sliceBytes(slots, size);
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.toIntExact(slice * c.paths()));
        List<QpEndpoint> paths = new ArrayList<>();
        List<ServerSocket> listeners = new ArrayList<>();
        ExecutorService sessions = Executors.newFixedThreadPool(c.paths(), namedThreads(label));
        try (IbvPd pd = context.allocPd();
                IbvCq cq = context.createCq(4096, null);
                IbvMr mr = pd.regMr(buf, IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ)) {
            try {
                return runPaths(c, label, pd, cq, mr, slice, paths, listeners, sessions, slots);
            } finally {
                for (QpEndpoint ep : paths) {
                    ep.close();
                }
                for (ServerSocket l : listeners) {
                    l.close();
                }
            }
        } finally {
            sessions.shutdownNow();
        }
    }

    private boolean runPaths(PeerCase c, String label, IbvPd pd, IbvCq cq, IbvMr mr, long slice,
            List<QpEndpoint> paths, List<ServerSocket> listeners, ExecutorService sessions, int slots)
            throws IOException, VerbsException {
        int size = settings.size();
        int iters = settings.iterations();
        boolean weReceiveSends = slots > 0;
        for (int p = 0; p < c.paths(); p++) {
            int vnic = settings.localVnicIndex(c.paths(), p);
            paths.add(QpEndpoint.create(pd, cq, mr, Math.toIntExact(p * slice), size, TX_DEPTH + 8,
                    Math.max(slots, 1), vnic, context.vnics().get(vnic).address()));
            prepareData(c, mr.buffer(), paths.get(p), size, p);
            if (!c.guestServer()) {
                listeners.add(PerftestChannel.listen(new InetSocketAddress(
                        context.vnics().get(vnic).address(), PerftestChannel.DEFAULT_PORT + p)));
            }
        }
        out.println("PEER-LOG " + label + ": " + c.paths() + " QP(s) ready, "
                + (c.guestServer() ? "connecting to" : "waiting for") + " perftest");
        Traffic traffic = new Traffic(cq, mr, paths, size, iters, settings.timeoutNanos());
        List<PerftestSession> ss = openSessions(c, paths, listeners, sessions);
        List<Callable<Void>> setUps = new ArrayList<>();
        for (int p = 0; p < ss.size(); p++) {
            int path = p;
            setUps.add(() -> {
                ss.get(path).setUp(() -> traffic.postReceives(path, slots));
                return null;
            });
        }
        runAll(sessions, setUps, ss);
        for (int p = 0; p < ss.size(); p++) {
            PerftestSession s = ss.get(p);
            out.println("PEER-LOG " + label + "-p" + p + ": perftest " + s.remoteVersion() + ", path MTU "
                    + s.pathMtu().bytes() + ", remote " + s.remote() + ", local " + paths.get(p).myDest());
        }
        long t0 = System.nanoTime();
        String[] received = null;
        if (c.guestServer()) {
            List<PerftestDest> remotes = ss.stream().map(PerftestSession::remote).toList();
            traffic.request(opcode(c.verb()), remotes, TX_DEPTH);
        } else if (weReceiveSends) {
            received = traffic.receive(slots);
        }
        BwReport report = BwReport.of(size, iters, System.nanoTime() - t0);
        List<Callable<Void>> finishes = new ArrayList<>();
        for (PerftestSession s : ss) {
            finishes.add(() -> {
                s.finish(report);
                return null;
            });
        }
        runAll(sessions, finishes, ss);
        for (int p = 0; p < ss.size(); p++) {
            BwReport r = ss.get(p).remoteReport();
            if (r != null && !c.guestServer()) {
                out.printf("PEER-LOG %s-p%d: guest reported %d x %d bytes, %.1f MB/s%n", label, p,
                        r.iterations(), r.size(), r.averageMBps());
            }
        }
        if (c.guestServer()) {
            out.printf("PEER-LOG %s: %d x %d bytes per path in %.1f ms%n", label, iters, size,
                    (System.nanoTime() - t0) / 1e6);
        }
        return reportData(c, label, mr.buffer(), paths, size, received);
    }

    private List<PerftestSession> openSessions(PeerCase c, List<QpEndpoint> paths, List<ServerSocket> listeners,
            ExecutorService sessions) throws IOException {
        List<Callable<PerftestChannel>> opens = new ArrayList<>();
        for (int p = 0; p < c.paths(); p++) {
            int path = p;
            int vnic = settings.localVnicIndex(c.paths(), p);
            InetAddress local = context.vnics().get(vnic).address();
            opens.add(c.guestServer()
                    ? () -> PerftestChannel.connect(new InetSocketAddress(settings.guestAddress(path),
                            PerftestChannel.DEFAULT_PORT + path), local, settings.timeoutMillis())
                    : () -> PerftestChannel.accept(listeners.get(path), settings.timeoutMillis()));
        }
        List<PerftestSession> ss = new ArrayList<>();
        try {
            for (Future<PerftestChannel> f : sessions.invokeAll(opens)) {
                ss.add(new PerftestSession(c, f.get(), paths.get(ss.size()), settings.mtu(), settings.ackTimeout()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IOException("perftest connection failed", e.getCause());
        }
        return ss;
    }

    private void runAll(ExecutorService pool, List<Callable<Void>> steps, List<PerftestSession> ss)
            throws IOException, VerbsException {
        List<Future<Void>> fs = new ArrayList<>();
        for (Callable<Void> s : steps) {
            fs.add(pool.submit(s));
        }
        try {
            for (Future<Void> f : fs) {
                f.get(settings.timeoutMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (ExecutionException e) {
            ss.forEach(PerftestSession::abort);
            if (e.getCause() instanceof VerbsException ve) {
                throw ve;
            }
            throw new IOException("perftest session failed", e.getCause());
        } catch (TimeoutException | InterruptedException e) {
            ss.forEach(PerftestSession::abort);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("perftest session did not finish in " + settings.timeoutMillis() + " ms", e);
        }
    }

    /** Our side's initial buffer contents; seeds differ per verb, direction and path. */
    private static void prepareData(PeerCase c, ByteBuffer buf, QpEndpoint ep, int size, int path) {
        int seed = c.verb().ordinal() * 16 + (c.guestServer() ? 0 : 8) + path;
        DataPattern.fill(buf, ep.localOffset(), size, seed);
        // The guest's WRITE target is pre-filled with a marker so an absent WRITE cannot match.
        DataPattern.fill(buf, ep.remoteOffset(), size, seed + 100);
    }

    private boolean reportData(PeerCase c, String label, ByteBuffer buf, List<QpEndpoint> paths, int size,
            String[] received) {
        boolean ok = true;
        for (int p = 0; p < paths.size(); p++) {
            QpEndpoint ep = paths.get(p);
            String sha;
            if (c.guestServer()) {
                sha = DataPattern.sha256(buf, ep.localOffset(), size); // sent, or what READ brought
            } else if (c.verb() == PeerCase.Verb.SEND) {
                sha = received[p];
            } else {
                sha = DataPattern.sha256(buf, ep.remoteOffset(), size); // written by the guest, or read by it
                if (c.verb() == PeerCase.Verb.WRITE) {
                    ByteBuffer marker = ByteBuffer.allocate(size);
                    DataPattern.fill(marker, 0, size, c.verb().ordinal() * 16 + 8 + p + 100);
                    if (sha.equals(DataPattern.sha256(marker, 0, size))) {
                        out.println("PEER-FAIL " + label + "-p" + p + ": the guest's WRITEs never arrived");
                        ok = false;
                    }
                }
            }
            out.println("PEER-DATA " + label + "-p" + p + " " + sha);
        }
        return ok;
    }

    private static IbvWrOpcode opcode(PeerCase.Verb v) {
        return switch (v) {
            case WRITE -> IbvWrOpcode.RDMA_WRITE;
            case READ -> IbvWrOpcode.RDMA_READ;
            case SEND -> IbvWrOpcode.SEND;
        };
    }

    private static long delta(Map<VerbsCounter, Long> before, Map<VerbsCounter, Long> after, VerbsCounter k) {
        return after.getOrDefault(k, 0L) - before.getOrDefault(k, 0L);
    }

    private static java.util.concurrent.ThreadFactory namedThreads(String label) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "virtuoso-rxe-session-" + label + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }
}
