package dev.virtuoso.decomposer.internal;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathState;
import dev.virtuoso.decomposer.ChunkObserver;
import dev.virtuoso.decomposer.ChunkTransport;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionCounters;
import dev.virtuoso.decomposer.DecompositionCounters.Counter;
import dev.virtuoso.decomposer.DecompositionWiring;
import dev.virtuoso.decomposer.MessageCompletionSink;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * The decomposition of one connection. Messages are placed in FIFO order, one after the other;
 * ranges of chunks that failed with their path go first. Each placement asks the load-balancing
 * session for a path and bounds the chunk by the congestion-avoidance session; a path at its window
 * is skipped (the session is asked again, at most once per path), after which placement waits for
 * the next completion or path change.
 */
final class DefaultDecomposition implements dev.virtuoso.decomposer.Decomposition, PathGate {
    private static final System.Logger LOG = System.getLogger(DefaultDecomposition.class.getName());
    /** SGE lengths are 32-bit; chunks stay well below. */
    static final long MAX_CHUNK_BYTES = 1L << 30;

    private final DecompositionConfig config;
    private final PathTable paths;
    private final ChunkTransport transport;
    private final MessageCompletionSink sink;
    private final ChunkObserver observer;
    private boolean observerFaultLogged;
    private final MessageTable msgs;
    private final ChunkTable chunks;
    private final RangeQueue fresh;
    private final RangeQueue reposts;
    private final BuiltinRoundRobin builtinLb;
    private final BuiltinFixedChunk builtinCc;
    private final ChunkPlacement placement = new ChunkPlacement();
    private final DecompositionCounters counters = new DecompositionCounters();
    private PathStateView view;
    private LoadBalancerSession lb;
    private CongestionAvoidanceSession cc;
    private boolean waiting;
    private long pathlessSince = -1;
    private long now = System.nanoTime();
    private boolean closed;

    DefaultDecomposition(DecompositionConfig config, DecompositionWiring wiring) {
        this.config = config;
        this.paths = wiring.paths();
        this.transport = wiring.transport();
        this.sink = wiring.sink();
        this.observer = wiring.observer();
        this.view = wiring.policyView();
        this.msgs = new MessageTable(config.maxMessages());
        this.chunks = new ChunkTable(config.maxChunks(), config.wrIdTag());
        this.fresh = new RangeQueue(config.maxMessages());
        this.reposts = new RangeQueue(2 * config.maxChunks());
        this.builtinLb = new BuiltinRoundRobin(this);
        this.builtinCc = new BuiltinFixedChunk(config.builtinChunkBytes(), config.builtinChunksPerPath());
        this.lb = builtinLb;
        this.cc = builtinCc;
    }

    @Override
    public boolean submit(MessageSpec spec) {
        if (closed) {
            return false;
        }
        int m = msgs.add(spec);
        if (m < 0) {
            return false;
        }
        counters.add(Counter.SUBMITTED);
        // below the split threshold a message goes whole on one path
        msgs.split[m] = spec.split() && spec.length() >= config.splitThreshold();
        if (spec.length() == 0 && !withImm(spec.chunkOpcode())) {
            complete(m);
            return true;
        }
        fresh.add(m, 0, -1);
        msgs.inFresh[m] = true;
        waiting = false;
        return true;
    }

    @Override
    public void tick(long nowNanos) {
        now = nowNanos;
        paths.clock(nowNanos);
        if (msgs.inUse() == 0 || (paths.anyHealthy() && anyUsable())) { // cheap test first: runs per duty cycle
            pathlessSince = -1;
        } else if (pathlessSince < 0) {
            pathlessSince = nowNanos;
        } else if (nowNanos - pathlessSince >= config.failoverTimeoutNanos()) {
            pathlessSince = -1;
            counters.add(Counter.FAILOVER_TIMEOUT);
            failAll(MpStatus.PATH_FAILURE, "no usable path for " + config.failoverTimeoutNanos() / 1_000_000
                    + " ms", false);
        }
        if (waiting && chunks.inUse() == 0) {
            // nothing in flight can wake placement up: ask the sessions again
            waiting = false;
        }
    }

    @Override
    public int schedule() {
        if (waiting || closed) {
            return 0;
        }
        int posted = 0;
        while (!reposts.isEmpty()) {
            int m = reposts.headMessage();
            long len = reposts.headLength();
            long n = placeChunk(m, reposts.headOffset(), len);
            if (n < 0) {
                waiting = true;
                return posted;
            }
            posted++;
            counters.add(Counter.REPOSTED);
            if (n == len) {
                reposts.removeHead();
                msgs.rangesQueued[m]--;
            } else {
                reposts.advanceHead(n);
            }
        }
        while (!fresh.isEmpty()) {
            int m = fresh.headMessage();
            long off = msgs.placed[m];
            long rem = msgs.length[m] - off;
            if (!msgs.started[m]) {
                msgs.started[m] = true;
                messageStart(msgs.messageId[m], rem);
            }
            long n = placeChunk(m, off, rem);
            if (n < 0) {
                waiting = true;
                break;
            }
            posted++;
            msgs.placed[m] = off + n;
            if (off + n == msgs.length[m]) {
                fresh.removeHead();
                msgs.inFresh[m] = false;
            }
        }
        return posted;
    }

    /** @return bytes posted as one chunk of message {@code m} at {@code off}, or -1 if none */
    private long placeChunk(int m, long off, long rem) {
        if (rem == 0) {
            // a zero-length SEND carries no bytes to balance and a policy may decline to place
            // nothing (lb-adaptive does): any usable path with room takes it
            int p = builtinLb.pick();
            return p >= 0 && hasRoom(p) && post(m, p, off, 0) ? 0 : -1;
        }
        int attempts = Math.max(1, paths.pathCount());
        for (int a = 0; a < attempts; a++) {
            placement.clear();
            if (!place(msgs.messageId[m], rem)) {
                return -1;
            }
            int p = placement.path();
            if (p < 0 || p >= paths.pathCount() || !usable(p)) {
                counters.add(Counter.INVALID_PLACEMENT);
                p = builtinLb.pick();
                if (p < 0) {
                    return -1;
                }
            } else if (!hasRoom(p)) {
                counters.add(Counter.DEFERRED);
                continue;
            }
            long n = rem;
            if (msgs.split[m]) {
                long limit = Math.min(placement.maxBytes(), maxChunkBytes(p));
                n = Math.min(Math.min(rem, Math.max(1, limit)), MAX_CHUNK_BYTES);
            }
            if (post(m, p, off, n)) {
                return n;
            }
        }
        return -1;
    }

    private boolean post(int m, int p, long off, long n) {
        int c = chunks.allocate();
        if (c < 0) {
            return false;
        }
        IbvWrOpcode op = msgs.chunkOpcode[m];
        long remote = op == IbvWrOpcode.SEND_WITH_IMM ? 0 : msgs.remoteAddr[m] + off;
        if (!transport.post(p, chunks.wrId(c), op, msgs.localAddr[m] + off, (int) n, msgs.lkey[m], remote,
                msgs.rkey[m], msgs.immData[m])) {
            chunks.release(c);
            counters.add(Counter.POST_REFUSED);
            if (paths.state(p) != PathState.UP) {
                pathsChanged();
            }
            return false;
        }
        chunks.message[c] = m;
        chunks.path[c] = p;
        chunks.offset[c] = off;
        chunks.length[c] = n;
        chunks.postedAt[c] = now;
        msgs.chunksInFlight[m]++;
        paths.onPosted(p, n);
        counters.add(Counter.POSTED);
        if (observer != null) {
            try {
                observer.onChunkPosted(p, n);
            } catch (RuntimeException e) {
                observerFault(e);
            }
        }
        return true;
    }

    @Override
    public void onCompletion(IbvWc wc) {
        int c = chunks.slotOf(wc.wrId());
        if (c < 0) {
            counters.add(Counter.STALE);
            return;
        }
        int m = chunks.message[c];
        int p = chunks.path[c];
        long off = chunks.offset[c];
        long n = chunks.length[c];
        long latency = Math.max(0, now - chunks.postedAt[c]);
        chunks.release(c);
        msgs.chunksInFlight[m]--;
        IbvWcStatus st = wc.status();
        ChunkOutcome outcome = ChunkStatus.outcome(st);
        boolean ok = st == IbvWcStatus.SUCCESS;
        paths.onCompleted(p, n, latency, ok);
        chunkComplete(p, n, latency, outcome);
        if (ok) {
            msgs.completedBytes[m] += n;
            msgs.pathMask[m] |= 1L << (p & 63);
        } else {
            counters.add(Counter.CHUNK_FAILED);
            // any error completion leaves the QP in ERR
            pathBroken(p, st);
            MpStatus failure = ChunkStatus.requestFailure(st);
            if (failure != null) {
                failMessage(m, failure, msgs.opcode[m] + " chunk failed on path " + p + ": " + st);
            } else {
                retry(m, p, off, n);
            }
        }
        waiting = false;
        maybeComplete(m);
    }

    private static boolean withImm(IbvWrOpcode op) {
        return op == IbvWrOpcode.SEND_WITH_IMM || op == IbvWrOpcode.RDMA_WRITE_WITH_IMM;
    }

    /** An attempt of message {@code m} on path {@code p} failed or was abandoned: place it again. */
    private void retry(int m, int p, long off, long n) {
        if (!msgs.dropsDuplicates[m]) {
            // a late packet of the failed attempt may still take effect until the path is fenced; a
            // SEND whose receiver drops a second copy needs no fence: its late copy changes nothing
            needFence(m, p);
        }
        if (msgs.chunkOpcode[m] == IbvWrOpcode.RDMA_WRITE_WITH_IMM) {
            // a direct small SEND (one chunk, the whole message): the failed WRITE may have landed, or
            // may still land until the path is fenced. Re-sent as a SEND into a receive slot, the peer
            // drops it as a duplicate if the WRITE landed; held until the fence, the WRITE cannot land
            // after the SEND was delivered and the buffer posted again
            msgs.chunkOpcode[m] = IbvWrOpcode.SEND_WITH_IMM;
            msgs.resendAfterFence[m] = !msgs.failed(m);
            return;
        }
        repost(m, off, n);
    }

    /** Message {@code m} had an attempt on path {@code p} that failed: late packets of it may still land. */
    private void needFence(int m, int p) {
        msgs.fenceMask[m] |= 1L << p;
    }

    private void repost(int m, long off, long n) {
        if (msgs.failed(m)) {
            return;
        }
        if (reposts.add(m, off, n)) {
            msgs.rangesQueued[m]++;
        } else {
            failMessage(m, MpStatus.PATH_FAILURE, "too many chunks to re-post");
        }
    }

    private void pathBroken(int p, IbvWcStatus st) {
        if (paths.state(p) == PathState.UP) {
            transport.pathFailed(p, st); // the core's path lifecycle marks it RECOVERING
            pathsChanged();
        }
    }

    private void failMessage(int m, MpStatus status, String detail) {
        if (msgs.failed(m)) {
            return;
        }
        msgs.status[m] = status;
        msgs.detail[m] = detail;
        if (msgs.inFresh[m]) {
            fresh.removeMessage(m);
            msgs.inFresh[m] = false;
        }
        if (msgs.rangesQueued[m] > 0) {
            reposts.removeMessage(m);
            msgs.rangesQueued[m] = 0;
        }
        msgs.resendAfterFence[m] = false;
    }

    private void maybeComplete(int m) {
        if (!msgs.inUse(m) || msgs.chunksInFlight[m] > 0 || msgs.rangesQueued[m] > 0 || msgs.inFresh[m]
                || msgs.resendAfterFence[m]) {
            return;
        }
        if (!msgs.failed(m) && msgs.completedBytes[m] < msgs.length[m]) {
            return;
        }
        if (!msgs.failed(m) && msgs.fenceMask[m] != 0) {
            // every byte is placed, but a failed attempt on another path may still land later
            if (!msgs.heldForFence[m]) {
                msgs.heldForFence[m] = true;
                counters.add(Counter.FENCE_WAIT);
            }
            return;
        }
        complete(m);
    }

    private void complete(int m) {
        boolean ok = !msgs.failed(m);
        counters.add(ok ? Counter.COMPLETED : Counter.FAILED);
        long wrId = msgs.wrId[m];
        long tag = msgs.tag[m];
        long bytes = ok ? msgs.length[m] : msgs.completedBytes[m];
        int pathsUsed = Long.bitCount(msgs.pathMask[m]);
        var opcode = msgs.opcode[m];
        var status = msgs.status[m];
        String detail = msgs.detail[m];
        msgs.release(m);
        sink.onMessageComplete(wrId, tag, opcode, status, bytes, pathsUsed, detail);
    }

    @Override
    public int abandonPath(int path) {
        int n = 0;
        for (int c = 0; c < chunks.capacity(); c++) {
            if (chunks.inUse(c) && chunks.path[c] == path) {
                n++;
                int m = chunks.message[c];
                long len = chunks.length[c];
                long off = chunks.offset[c];
                chunks.release(c);
                msgs.chunksInFlight[m]--;
                paths.onCompleted(path, len, -1, false);
                chunkComplete(path, len, 0, ChunkOutcome.FLUSHED);
                retry(m, path, off, len);
                maybeComplete(m);
            }
        }
        waiting = false;
        return n;
    }

    @Override
    public int pathFenced(int path) {
        long bit = 1L << path;
        int n = 0;
        for (int m = 0; m < msgs.capacity(); m++) {
            if (msgs.inUse(m) && (msgs.fenceMask[m] & bit) != 0) {
                msgs.fenceMask[m] &= ~bit;
                if (msgs.fenceMask[m] == 0 && msgs.heldForFence[m]) {
                    n++;
                }
                if (msgs.fenceMask[m] == 0 && msgs.resendAfterFence[m]) {
                    msgs.resendAfterFence[m] = false;
                    repost(m, 0, msgs.length[m]);
                    waiting = false;
                }
                maybeComplete(m);
            }
        }
        return n;
    }

    @Override
    public int messagesAwaitingFence() {
        int n = 0;
        for (int m = 0; m < msgs.capacity(); m++) {
            if (msgs.inUse(m) && msgs.heldForFence[m] && msgs.fenceMask[m] != 0) {
                n++;
            }
        }
        return n;
    }

    @Override
    public int failAll(MpStatus status, String detail, boolean abandonInFlight) {
        int n = 0;
        for (int m = 0; m < msgs.capacity(); m++) {
            if (msgs.inUse(m) && !msgs.failed(m)) {
                failMessage(m, status, detail);
                n++;
            }
        }
        if (abandonInFlight) {
            for (int c = 0; c < chunks.capacity(); c++) {
                if (chunks.inUse(c)) {
                    int m = chunks.message[c];
                    paths.onCompleted(chunks.path[c], chunks.length[c], -1, false);
                    chunks.release(c);
                    msgs.chunksInFlight[m]--;
                }
            }
        }
        for (int m = 0; m < msgs.capacity(); m++) {
            maybeComplete(m);
        }
        return n;
    }

    @Override
    public void loadBalancer(LoadBalancerSession session) {
        LoadBalancerSession old = lb;
        lb = session == null ? builtinLb : session;
        if (old != builtinLb && old != lb) {
            closeQuietly(old);
        }
        // the new session hears of the message under way as if it started now
        if (!fresh.isEmpty()) {
            msgs.started[fresh.headMessage()] = false;
        }
        waiting = false;
    }

    @Override
    public void congestionAvoidance(CongestionAvoidanceSession session) {
        CongestionAvoidanceSession old = cc;
        cc = session == null ? builtinCc : session;
        if (old != builtinCc && old != cc) {
            closeQuietly(old);
        }
        waiting = false;
    }

    @Override
    public void policyView(PathStateView v) {
        view = v == null ? paths : v;
        waiting = false;
    }

    @Override
    public void pathsChanged() {
        try {
            lb.onPathsChanged();
        } catch (RuntimeException e) {
            lbFault(e);
        }
        try {
            cc.onPathsChanged();
        } catch (RuntimeException e) {
            ccFault(e);
        }
        waiting = false;
    }

    @Override
    public int messagesInProgress() {
        return msgs.inUse();
    }

    @Override
    public int chunksInFlight() {
        return chunks.inUse();
    }

    @Override
    public DecompositionCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (lb != builtinLb) {
            closeQuietly(lb);
            lb = builtinLb;
        }
        if (cc != builtinCc) {
            closeQuietly(cc);
            cc = builtinCc;
        }
    }

    // PathGate, used by the built-in round robin

    @Override
    public int pathCount() {
        return paths.pathCount();
    }

    @Override
    public boolean open(int path) {
        return usable(path) && hasRoom(path);
    }

    private boolean anyUsable() {
        for (int p = 0; p < paths.pathCount(); p++) {
            if (usable(p)) {
                return true;
            }
        }
        return false;
    }

    private boolean usable(int p) {
        return paths.state(p) == PathState.UP && view.usable(p);
    }

    private boolean hasRoom(int p) {
        int window = Math.min(maxOutstandingChunks(p), transport.sendQueueDepth(p));
        return paths.inFlightChunks(p) < window;
    }

    // policy calls, each guarded: a throwing session is replaced by the built-in one

    private boolean place(long messageId, long rem) {
        try {
            return lb.place(messageId, rem, placement);
        } catch (RuntimeException e) {
            lbFault(e);
            placement.clear();
            return builtinLb.place(messageId, rem, placement);
        }
    }

    private void messageStart(long messageId, long bytes) {
        try {
            lb.onMessageStart(messageId, bytes);
        } catch (RuntimeException e) {
            lbFault(e);
        }
    }

    @Override
    public long maxChunkBytes(int p) {
        try {
            return cc.maxChunkBytes(p);
        } catch (RuntimeException e) {
            ccFault(e);
            return builtinCc.maxChunkBytes(p);
        }
    }

    @Override
    public int maxOutstandingChunks(int p) {
        try {
            return Math.max(1, cc.maxOutstandingChunks(p));
        } catch (RuntimeException e) {
            ccFault(e);
            return builtinCc.maxOutstandingChunks(p);
        }
    }

    @Override
    public long pacingBitsPerSecond(int p) {
        try {
            return Math.max(0, cc.pacingBitsPerSecond(p));
        } catch (RuntimeException e) {
            ccFault(e);
            return 0;
        }
    }

    private void chunkComplete(int p, long n, long latency, ChunkOutcome outcome) {
        if (observer != null) {
            try {
                observer.onChunkCompleted(p, n, latency, outcome);
            } catch (RuntimeException e) {
                observerFault(e);
            }
        }
        try {
            lb.onChunkComplete(p, n, latency, outcome);
        } catch (RuntimeException e) {
            lbFault(e);
        }
        try {
            cc.onChunkComplete(p, n, latency, outcome);
        } catch (RuntimeException e) {
            ccFault(e);
        }
    }

    private void lbFault(RuntimeException e) {
        // once per session: the session is replaced by the built-in one and never called again
        LOG.log(System.Logger.Level.WARNING, "load-balancer session " + lb + " failed; using the built-in one", e);
        counters.add(Counter.POLICY_FAULT);
        loadBalancer(null);
    }

    private void ccFault(RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "congestion-avoidance session " + cc + " failed; using the built-in one",
                e);
        counters.add(Counter.POLICY_FAULT);
        congestionAvoidance(null);
    }

    /** The observer stays attached after a fault: log the first one only, count every one (per chunk). */
    private void observerFault(RuntimeException e) {
        if (!observerFaultLogged) {
            observerFaultLogged = true;
            LOG.log(System.Logger.Level.WARNING, "chunk observer " + observer + " failed (further faults are only counted)",
                    e);
        }
        counters.add(Counter.POLICY_FAULT);
    }

    private static void closeQuietly(AutoCloseable s) {
        try {
            s.close();
        } catch (Exception e) {
            // a session failing to close must not stop the engine; it is never called again
            LOG.log(System.Logger.Level.WARNING, "closing session " + s + " failed", e);
        }
    }
}
