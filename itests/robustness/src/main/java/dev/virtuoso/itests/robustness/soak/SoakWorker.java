package dev.virtuoso.itests.robustness.soak;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.itests.robustness.soak.SoakStats.Kind;

/**
 * One connection's load, on its own thread: connect, run batches of 1..{@value #SLOTS} mixed
 * operations (each in its own slot of the buffers, so they run concurrently), verify every byte,
 * swap the load balancer and the congestion avoidance now and then (while a batch is in flight), disconnect after a randomised lifetime, repeat until stopped.
 * A failed or hanging batch ends the connection (it is closed and a new one made).
 */
final class SoakWorker implements Runnable {
    static final int SLOTS = 4;
    /** Bytes after each received message that must stay untouched. */
    static final int CANARY = 64;
    /** Load balancers a connection cycles through. */
    static final String[] BALANCERS = {ConnectOptions.BUILTIN_ROUND_ROBIN, "lb-roundrobin", "lb-adaptive"};
    /** Congestion avoidances a connection alternates between (with every load-balancer swap). */
    static final String[] CONGESTION = {ConnectOptions.BUILTIN_FIXED_CHUNK, "cc-chunkprobe"};

    private final int id;
    private final MultipathConnector connector;
    private final MultipathListener listener;
    private final ConnectOptions clientOptions;
    private final SoakConfig config;
    private final SoakStats stats;
    private final SplittableRandom random;
    private final int slotBytes;
    private final ByteBuffer clientSrc;
    private final ByteBuffer clientDst;
    private final ByteBuffer serverMem;
    private final ByteBuffer serverBuf;
    private final MpCompletion[] polled = new MpCompletion[8];
    private final MpCompletion awaited = new MpCompletion();
    private volatile boolean stop;
    private long opSeq;
    private long wrIdBase = 1 << 20;
    private int swaps;

    // the batch in progress
    private final Kind[] kinds = new Kind[SLOTS];
    private final int[] lengths = new int[SLOTS];
    private final long[] seeds = new long[SLOTS];
    private final boolean[] clientDone = new boolean[SLOTS];
    private final boolean[] serverDone = new boolean[SLOTS];
    private final boolean[] bad = new boolean[SLOTS];

    SoakWorker(int id, MultipathConnector connector, MultipathListener listener, ConnectOptions clientOptions,
            SoakConfig config, SoakStats stats) {
        this.id = id;
        this.connector = connector;
        this.listener = listener;
        this.clientOptions = clientOptions;
        this.config = config;
        this.stats = stats;
        this.random = new SplittableRandom(config.seed() * 1_000_003L + id);
        this.slotBytes = config.maxMessageBytes() + CANARY;
        this.clientSrc = ByteBuffer.allocateDirect(SLOTS * slotBytes);
        this.clientDst = ByteBuffer.allocateDirect(SLOTS * slotBytes);
        this.serverMem = ByteBuffer.allocateDirect(SLOTS * slotBytes);
        this.serverBuf = ByteBuffer.allocateDirect(SLOTS * slotBytes);
        for (int i = 0; i < polled.length; i++) {
            polled[i] = new MpCompletion();
        }
    }

    /** Asks the worker to finish its batch, close its connection and return. */
    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        while (!stop) {
            try {
                session();
            } catch (Exception | AssertionError e) {
                stats.sessionError("worker " + id + ": " + e);
                sleepQuietly(200);
            }
        }
    }

    /** The registered buffers of one connection. */
    private record Regions(MemoryRegion clientSrc, MemoryRegion clientDst, MemoryRegion serverMem,
            MemoryRegion serverBuf) {
        void close() {
            clientSrc.close();
            clientDst.close();
            serverMem.close();
            serverBuf.close();
        }
    }

    private void session() throws Exception {
        MultipathConnection c = connector.connect(listener.localAddress(), clientOptions);
        MultipathConnection s = null;
        Regions r = null;
        try {
            s = listener.accept(config.opTimeout().toSeconds(), TimeUnit.SECONDS);
            if (s == null) {
                stats.sessionError("worker " + id + ": the listener accepted nothing in " + config.opTimeout());
                return;
            }
            stats.connects.increment();
            EnumSet<Access> local = EnumSet.of(Access.LOCAL_WRITE);
            EnumSet<Access> remote = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            r = new Regions(c.register(clientSrc, local), c.register(clientDst, remote), s.register(serverMem, remote),
                    s.register(serverBuf, remote));
            long now = System.nanoTime();
            long end = now + (long) (config.churn().toNanos() * (0.5 + random.nextDouble()));
            long swapEvery = config.swap().toNanos();
            long nextSwap = swapEvery > 0 ? now + swapEvery : Long.MAX_VALUE;
            while (!stop && System.nanoTime() < end) {
                boolean swapNow = System.nanoTime() >= nextSwap;
                if (swapNow) {
                    nextSwap += swapEvery;
                }
                if (!batch(c, s, r, swapNow)) {
                    break;
                }
            }
        } finally {
            if (s != null) {
                collectPathStats(c);
                collectPathStats(s);
            }
            c.close();
            if (s != null) {
                s.close();
            }
            if (r != null) {
                r.close();
            }
            stats.disconnects.increment();
        }
    }

    private void collectPathStats(MultipathConnection conn) {
        for (PathStats p : conn.pathStats()) {
            stats.chunksFailed.add(p.chunksFailed());
            stats.pathRetransmissions.add(p.retransmissions());
        }
    }

    private Kind pickKind() {
        int x = random.nextInt(100);
        return x < 30 ? Kind.WRITE : x < 55 ? Kind.READ : x < 85 ? Kind.SEND_TO_SERVER : Kind.SEND_TO_CLIENT;
    }

    /** Small, medium (below the split threshold), large, and now and then an edge length. */
    private int pickLength(Kind kind) {
        int split = config.splitThreshold();
        int max = config.maxMessageBytes();
        int x = random.nextInt(100);
        if (x < 5) {
            int[] edges = {0, 1, split - 1, split, split + 1, max};
            int len = edges[random.nextInt(edges.length)];
            boolean send = kind == Kind.SEND_TO_SERVER || kind == Kind.SEND_TO_CLIENT;
            return len == 0 && send && !config.zeroLengthSends() ? 1 : len;
        }
        if (x < 45) {
            return random.nextInt(1, 4097);
        }
        if (x < 65) {
            return random.nextInt(4097, split);
        }
        return random.nextInt(split, max + 1);
    }

    /** @return false if the connection must be abandoned (a failure or a hang) */
    private boolean batch(MultipathConnection c, MultipathConnection s, Regions r, boolean swap) throws Exception {
        int k = 1 + random.nextInt(SLOTS);
        long base = wrIdBase;
        wrIdBase += 16;
        int serverExpected = 0;
        for (int j = 0; j < k; j++) {
            kinds[j] = pickKind();
            lengths[j] = pickLength(kinds[j]);
            seeds[j] = Pattern.word(config.seed(), ((long) id << 40) + ++opSeq);
            clientDone[j] = false;
            serverDone[j] = kinds[j] != Kind.SEND_TO_SERVER && kinds[j] != Kind.SEND_TO_CLIENT;
            bad[j] = false;
            int off = j * slotBytes;
            int len = lengths[j];
            switch (kinds[j]) {
                case WRITE -> Pattern.fill(clientSrc, off, len, seeds[j]);
                case READ -> Pattern.fill(serverMem, off, len, seeds[j]);
                case SEND_TO_SERVER -> {
                    Pattern.fill(clientSrc, off, len, seeds[j]);
                    Pattern.fill(serverBuf, off + len, CANARY, ~seeds[j]);
                    s.postRecv(base + j, r.serverBuf(), off, config.maxMessageBytes());
                    serverExpected++;
                }
                case SEND_TO_CLIENT -> {
                    Pattern.fill(serverBuf, off, len, seeds[j]);
                    Pattern.fill(clientDst, off + len, CANARY, ~seeds[j]);
                    c.postRecv(base + j, r.clientDst(), off, config.maxMessageBytes());
                    serverExpected++;
                }
                default -> throw new IllegalStateException(kinds[j].toString());
            }
        }
        for (int j = 0; j < k; j++) {
            int off = j * slotBytes;
            switch (kinds[j]) {
                case WRITE -> c.postWrite(base + j, r.clientSrc(), off, lengths[j], r.serverMem().remote(), off);
                case READ -> c.postRead(base + j, r.clientDst(), off, lengths[j], r.serverMem().remote(), off);
                case SEND_TO_SERVER -> c.postSend(base + j, r.clientSrc(), off, lengths[j]);
                case SEND_TO_CLIENT -> s.postSend(base + j, r.serverBuf(), off, lengths[j]);
                default -> throw new IllegalStateException(kinds[j].toString());
            }
        }
        if (swap) {
            swaps++;
            String lb = BALANCERS[swaps % BALANCERS.length];
            String cc = CONGESTION[swaps % CONGESTION.length];
            c.setLoadBalancer(lb);
            s.setLoadBalancer(lb);
            c.setCongestionAvoidance(cc);
            s.setCongestionAvoidance(cc);
            stats.swaps.increment();
        }
        if (!awaitAll(c, s, base, k, k + serverExpected)) {
            return false;
        }
        stats.batches.increment();
        boolean healthy = true;
        for (int j = 0; j < k; j++) {
            if (bad[j]) {
                healthy = false;
            } else {
                verify(j, c);
            }
        }
        return healthy;
    }

    /** Collects the batch's completions of both sides; false (and a TIMEOUT recorded) on a hang. */
    private boolean awaitAll(MultipathConnection c, MultipathConnection s, long base, int k, int expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + config.opTimeout().toNanos();
        int got = 0;
        while (got < expected) {
            int n = c.pollCompletions(polled);
            for (int i = 0; i < n; i++) {
                got += complete(polled[i], true, base, k, c);
            }
            int m = s.pollCompletions(polled);
            for (int i = 0; i < m; i++) {
                got += complete(polled[i], false, base, k, s);
            }
            if (n == 0 && m == 0 && got < expected) {
                if (System.nanoTime() - deadline > 0) {
                    stats.timeout("worker " + id + ": " + (expected - got) + " of " + expected
                            + " completions missing after " + config.opTimeout() + "; batch " + describe(k)
                            + "; client " + c + "; server " + s);
                    return false;
                }
                if (c.awaitCompletion(awaited, 1, TimeUnit.MILLISECONDS)) {
                    got += complete(awaited, true, base, k, c);
                }
            }
        }
        return true;
    }

    /** @return 1 if the completion belongs to this batch's expectations (it is then recorded) */
    private int complete(MpCompletion m, boolean client, long base, int k, MultipathConnection conn) {
        long j = m.wrId() - base;
        if (j < 0 || j >= k) {
            stats.unexpected("worker " + id + ": completion of a wr_id outside the batch: " + m + " on " + conn);
            return 0;
        }
        int slot = (int) j;
        Kind kind = kinds[slot];
        boolean[] done = client ? clientDone : serverDone;
        if (done[slot]) {
            stats.failed(kind, "worker " + id + ": second completion " + m + " on " + conn);
            bad[slot] = true;
            return 0;
        }
        done[slot] = true;
        MpOpcode want = expectedOpcode(kind, client);
        if (!m.ok()) {
            stats.failed(kind, "worker " + id + ": " + m + " len=" + lengths[slot] + " on " + conn);
            bad[slot] = true;
        } else if (m.opcode() != want || m.byteLength() != lengths[slot]) {
            stats.failed(kind, "worker " + id + ": expected " + want + " of " + lengths[slot] + " bytes, got " + m);
            bad[slot] = true;
        }
        return 1;
    }

    private static MpOpcode expectedOpcode(Kind kind, boolean client) {
        return switch (kind) {
            case WRITE -> MpOpcode.WRITE;
            case READ -> MpOpcode.READ;
            case SEND_TO_SERVER -> client ? MpOpcode.SEND : MpOpcode.RECV;
            case SEND_TO_CLIENT -> client ? MpOpcode.RECV : MpOpcode.SEND;
        };
    }

    private void verify(int j, MultipathConnection c) {
        int off = j * slotBytes;
        int len = lengths[j];
        ByteBuffer dst = switch (kinds[j]) {
            case WRITE -> serverMem;
            case READ, SEND_TO_CLIENT -> clientDst;
            case SEND_TO_SERVER -> serverBuf;
        };
        int at = Pattern.firstMismatch(dst, off, len, seeds[j]);
        if (at >= 0) {
            stats.mismatch("worker " + id + " " + kinds[j] + " of " + len + " bytes (seed " + seeds[j]
                    + "): first differing byte at " + at + ", expected " + Pattern.expected(seeds[j], at) + " got "
                    + dst.get(off + at) + " on " + c.id());
            return;
        }
        if (kinds[j] == Kind.SEND_TO_SERVER || kinds[j] == Kind.SEND_TO_CLIENT) {
            int canary = Pattern.firstMismatch(dst, off + len, CANARY, ~seeds[j]);
            if (canary >= 0) {
                stats.mismatch("worker " + id + " " + kinds[j] + " of " + len + " bytes: byte " + canary
                        + " after the message end was overwritten, on " + c.id());
                return;
            }
        }
        stats.ok(kinds[j], len, len >= config.splitThreshold());
    }

    private String describe(int k) {
        StringBuilder b = new StringBuilder("[");
        for (int j = 0; j < k; j++) {
            b.append(j == 0 ? "" : ", ").append(kinds[j]).append(' ').append(lengths[j])
                    .append(clientDone[j] ? " c" : " -").append(serverDone[j] ? "s" : "-");
        }
        return b.append(']').toString();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
