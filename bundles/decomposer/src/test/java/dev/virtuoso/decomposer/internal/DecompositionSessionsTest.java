package dev.virtuoso.decomposer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathState;
import dev.virtuoso.decomposer.ChunkObserver;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionWiring;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * The decomposition's contract with its policy sessions and observer (what they are told, what a
 * throwing one costs), its counters and its lifecycle. Paths fill the table exactly, so a slot
 * beyond the table cannot pass for a DOWN one.
 */
class DecompositionSessionsTest {
    private static final long KIB = 1024;
    private static final long MIB = KIB * KIB;
    private static final long FAILOVER = 1_000_000_000L;

    record Done(long wrId, MpOpcode opcode, MpStatus status, long bytes, int paths, String detail) {
    }

    private final RecordingTransport transport = new RecordingTransport();
    private final List<Done> done = new ArrayList<>();
    private final MessageSpec spec = new MessageSpec();
    private final IbvWc wc = new IbvWc();
    private final List<String> observed = new ArrayList<>();
    private boolean observerThrows;
    private PathTable paths;
    private Decomposition d;
    private long clock = 5_000_000_000L;

    private void open(int pathCount, boolean withObserver) {
        paths = new PathTable(pathCount);
        transport.paths = paths;
        for (int i = 0; i < pathCount; i++) {
            paths.add();
        }
        ChunkObserver observer = !withObserver ? null : new ChunkObserver() {
            @Override
            public void onChunkPosted(int path, long bytes) {
                observed.add("posted " + path + " " + bytes);
                if (observerThrows) {
                    throw new IllegalStateException("observer bug");
                }
            }

            @Override
            public void onChunkCompleted(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
                observed.add("completed " + path + " " + bytes + " " + latencyNanos + " " + outcome);
                if (observerThrows) {
                    throw new IllegalStateException("observer bug");
                }
            }
        };
        d = new DecomposerComponent().newDecomposition(
                new DecompositionConfig("s", 4, 16, 64 * KIB, MIB, 2, FAILOVER, 1L << 60),
                new DecompositionWiring(paths, transport,
                        (wrId, tag, op, st, bytes, n, detail) -> done.add(new Done(wrId, op, st, bytes, n, detail)),
                        observer, null));
        d.tick(clock);
    }

    private void complete(RecordingTransport.Chunk c, IbvWcStatus status) {
        wc.set(c.wrId(), status, IbvWcOpcode.RDMA_WRITE, c.length(), 0, 0, 1, 0, 0);
        d.onCompletion(wc);
    }

    private void completeAll(IbvWcStatus status) {
        for (RecordingTransport.Chunk c : transport.take()) {
            complete(c, status);
        }
    }

    @Test
    void countersFollowAMessageThroughPostsAndCompletions() {
        open(2, false);
        assertTrue(d.submit(spec.write(1, 0, 1, 3 * MIB, 0, 2)));
        assertEquals(1, d.counters().messagesSubmitted());
        assertEquals(1, d.messagesInProgress());
        assertEquals(3, d.schedule());
        assertEquals(3, d.chunksInFlight());
        assertEquals(3, d.counters().chunksPosted());
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(0, d.chunksInFlight(), "completed chunks free their slots");
        assertEquals(0, d.messagesInProgress(), "a completed message frees its slot");
        assertEquals(1, d.counters().messagesCompleted());
        assertEquals(0, d.counters().messagesFailed());
        assertEquals(new Done(1, MpOpcode.WRITE, MpStatus.SUCCESS, 3 * MIB, 2, null), done.get(0));
    }

    @Test
    void submitRefusesWhenTheMessageTableIsFull() {
        open(2, false);
        for (int i = 0; i < 4; i++) {
            assertTrue(d.submit(spec.write(i, 0, 1, MIB, 0, 2)));
        }
        assertFalse(d.submit(spec.write(9, 0, 1, MIB, 0, 2)));
        assertEquals(4, d.counters().messagesSubmitted());
        assertEquals(4, d.messagesInProgress());
    }

    @Test
    void aFailedRequestReportsTheBytesThatArrivedAndCountsAsFailed() {
        open(2, false);
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        d.schedule();
        List<RecordingTransport.Chunk> chunks = transport.take();
        complete(chunks.get(0), IbvWcStatus.SUCCESS);
        complete(chunks.get(1), IbvWcStatus.REM_ACCESS_ERR);
        assertEquals(1, d.counters().chunksFailed());
        assertEquals(1, d.counters().messagesFailed());
        assertEquals(0, d.counters().messagesCompleted());
        assertEquals(MpStatus.REMOTE_ACCESS_ERROR, done.get(0).status());
        assertEquals(MIB, done.get(0).bytes(), "only the chunk that completed counts");
        assertEquals(0, d.messagesInProgress());
    }

    @Test
    void observerSeesPostsAndCompletionsWithLatency() {
        open(1, true);
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        d.schedule();
        d.tick(clock += 7_000);
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(List.of("posted 0 100", "completed 0 100 7000 SUCCESS"), observed);
        assertEquals(7_000, paths.smoothedLatencyNanos(0));
    }

    @Test
    void aThrowingObserverIsCountedAndTheWorkGoesOn() {
        open(1, true);
        observerThrows = true;
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        assertEquals(1, d.schedule());
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(2, d.counters().policyFaults());
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
    }

    @Test
    void loadBalancerHearsMessageStartsCompletionsAndPathChanges() {
        open(2, false);
        RecordingLb lb = new RecordingLb(1);
        d.loadBalancer(lb);
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        d.schedule();
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(List.of("start 100", "complete 1 100 SUCCESS"), lb.events);

        lb.events.clear();
        d.submit(spec.write(2, 0, 1, 100, 0, 2));
        d.schedule();
        completeAll(IbvWcStatus.RETRY_EXC_ERR);
        assertEquals(List.of("start 100", "complete 1 100 RETRY_EXCEEDED", "paths"), lb.events,
                "a failed chunk breaks its path and the session hears of it");
        assertEquals(PathState.RECOVERING, paths.state(1));
    }

    @Test
    void settingTheSameLoadBalancerAgainKeepsItOpen() {
        open(2, false);
        RecordingLb lb = new RecordingLb(0);
        d.loadBalancer(lb);
        d.loadBalancer(lb);
        assertFalse(lb.closed);
        d.close();
        assertTrue(lb.closed, "close() closes the session in use");
    }

    @Test
    void throwingLoadBalancerCallbacksEachCountAFault() {
        open(2, false);
        RecordingLb lb = new RecordingLb(1);
        lb.throwOnStart = true;
        d.loadBalancer(lb);
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        assertEquals(1, d.schedule());
        assertEquals(1, d.counters().policyFaults());
        assertTrue(lb.closed);
        assertEquals(0, transport.posted.get(0).path(), "the built-in round robin took over");

        RecordingLb second = new RecordingLb(1);
        second.throwOnComplete = true;
        d.loadBalancer(second);
        d.submit(spec.write(2, 0, 1, 100, 0, 2));
        d.schedule();
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(2, d.counters().policyFaults());
        assertTrue(second.closed);

        RecordingLb third = new RecordingLb(1);
        third.throwOnPaths = true;
        d.loadBalancer(third);
        d.pathsChanged();
        assertEquals(3, d.counters().policyFaults());
        assertTrue(third.closed);
        assertEquals(2, done.size());
    }

    @Test
    void throwingPlacementFallsBackToTheBuiltinForThatChunk() {
        open(2, false);
        RecordingLb lb = new RecordingLb(1);
        lb.throwOnPlace = true;
        d.loadBalancer(lb);
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        assertEquals(1, d.schedule());
        assertEquals(0, transport.posted.get(0).path());
        assertEquals(1, d.counters().policyFaults());
        assertEquals(0, d.counters().invalidPlacements(), "the built-in's placement is valid");
    }

    /** Captures what DefaultDecomposition logs (System.Logger goes to java.util.logging outside OSGi). */
    private static final class CapturedLog extends java.util.logging.Handler implements AutoCloseable {
        final List<java.util.logging.LogRecord> records = new ArrayList<>();
        private final java.util.logging.Logger logger =
                java.util.logging.Logger.getLogger(DefaultDecomposition.class.getName());

        CapturedLog() {
            logger.addHandler(this);
        }

        @Override
        public void publish(java.util.logging.LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }

    @Test
    void aThrowingPolicyIsLoggedWithItsStackTrace() {
        open(2, false);
        RecordingLb lb = new RecordingLb(1);
        lb.throwOnPlace = true;
        d.loadBalancer(lb);
        try (CapturedLog log = new CapturedLog()) {
            d.submit(spec.write(1, 0, 1, 100, 0, 2));
            assertEquals(1, d.schedule());
            assertEquals(1, log.records.size());
            java.util.logging.LogRecord r = log.records.get(0);
            assertEquals(java.util.logging.Level.WARNING, r.getLevel());
            assertEquals("policy bug", r.getThrown().getMessage());
            assertTrue(r.getThrown().getStackTrace().length > 0, "the stack trace is kept");
        }
    }

    @Test
    void aThrowingObserverIsLoggedOnceNotPerChunk() {
        open(1, true);
        observerThrows = true;
        try (CapturedLog log = new CapturedLog()) {
            d.submit(spec.write(1, 0, 1, 100, 0, 2));
            d.schedule();
            completeAll(IbvWcStatus.SUCCESS);
            d.submit(spec.write(2, 0, 1, 100, 0, 2));
            d.schedule();
            completeAll(IbvWcStatus.SUCCESS);
            assertEquals(4, d.counters().policyFaults());
            assertEquals(1, log.records.size(), "only the first observer fault is logged");
            assertEquals("observer bug", log.records.get(0).getThrown().getMessage());
        }
    }

    @Test
    void placementsNamingNoUsablePathUseTheBuiltin() {
        open(3, false);
        RecordingLb lb = new RecordingLb(3);
        d.loadBalancer(lb);
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        assertEquals(1, d.schedule());
        assertEquals(1, d.counters().invalidPlacements(), "path 3 is beyond the table");

        lb.path = -1;
        d.submit(spec.write(2, 0, 1, 100, 0, 2));
        d.schedule();
        assertEquals(2, d.counters().invalidPlacements());

        lb.path = 2;
        paths.state(2, PathState.DOWN);
        d.submit(spec.write(3, 0, 1, 100, 0, 2));
        d.schedule();
        assertEquals(3, d.counters().invalidPlacements());
        assertTrue(transport.posted.stream().noneMatch(c -> c.path() == 2));
        assertEquals(3, transport.posted.size());
    }

    @Test
    void aPlacementThatDecidesNothingIsInvalidNotTheLastOneRepeated() {
        open(2, false);
        RecordingLb lb = new RecordingLb(1);
        d.loadBalancer(lb);
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        d.schedule();
        assertEquals(1, transport.posted.get(0).path());
        lb.setsNothing = true;
        d.submit(spec.write(2, 0, 1, 100, 0, 2));
        d.schedule();
        assertEquals(1, d.counters().invalidPlacements());
        assertEquals(0, transport.posted.get(1).path(), "the built-in chose, starting at path 0");
    }

    @Test
    void invalidPlacementWithEveryPathFullWaits() {
        open(1, false);
        RecordingLb lb = new RecordingLb(5);
        d.loadBalancer(lb);
        d.submit(spec.write(1, 0, 1, 10 * MIB, 0, 2));
        assertEquals(2, d.schedule(), "the built-in window of 2 chunks");
        assertEquals(2, d.chunksInFlight());
        assertEquals(0, d.schedule());
    }

    @Test
    void congestionAvoidanceSetsChunkSizeAndWindow() {
        open(1, false);
        RecordingCc cc = new RecordingCc(256 * KIB, 3);
        d.congestionAvoidance(cc);
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        assertEquals(3, d.schedule());
        assertTrue(transport.posted.stream().allMatch(c -> c.length() == 256 * KIB));
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(3, cc.completions);
        d.pathsChanged();
        assertEquals(1, cc.pathChanges);
        d.congestionAvoidance(cc);
        assertFalse(cc.closed, "setting the same session again keeps it");
        d.congestionAvoidance(null);
        assertTrue(cc.closed);
    }

    @Test
    void pacingComesFromTheSessionNeverNegativeAndIsNoneAfterAFault() {
        open(1, false);
        assertEquals(0, d.pacingBitsPerSecond(0), "the built-in does not pace");
        RecordingCc cc = new RecordingCc(MIB, 2);
        cc.pacing = 90_000_000;
        d.congestionAvoidance(cc);
        assertEquals(90_000_000, d.pacingBitsPerSecond(0));
        cc.pacing = -7;
        assertEquals(0, d.pacingBitsPerSecond(0), "a negative rate is no limit");
        cc.throwOnPacing = true;
        assertEquals(0, d.pacingBitsPerSecond(0));
        assertEquals(1, d.counters().policyFaults());
        assertTrue(cc.closed, "replaced by the built-in");
    }

    @Test
    void aZeroWindowFromThePolicyStillLetsOneChunkGo() {
        open(1, false);
        d.congestionAvoidance(new RecordingCc(256 * KIB, 0));
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        assertEquals(1, d.schedule());
    }

    @Test
    void throwingCongestionAvoidanceIsReplacedByTheBuiltin() {
        open(1, false);
        RecordingCc sizes = new RecordingCc(256 * KIB, 3);
        sizes.throwOnChunkBytes = true;
        d.congestionAvoidance(sizes);
        d.submit(spec.write(1, 0, 1, 4 * MIB, 0, 2));
        assertEquals(2, d.schedule(), "the built-in's window of 2");
        assertTrue(transport.posted.stream().allMatch(c -> c.length() == MIB), "the built-in's chunk size");
        assertEquals(1, d.counters().policyFaults());
        assertTrue(sizes.closed);
        completeAll(IbvWcStatus.SUCCESS);

        RecordingCc window = new RecordingCc(256 * KIB, 3);
        window.throwOnWindow = true;
        d.congestionAvoidance(window);
        assertEquals(2, d.schedule());
        assertEquals(2, d.counters().policyFaults());
        assertTrue(window.closed);
        completeAll(IbvWcStatus.SUCCESS);

        RecordingCc callbacks = new RecordingCc(256 * KIB, 3);
        callbacks.throwOnCallbacks = true;
        d.congestionAvoidance(callbacks);
        d.pathsChanged();
        assertEquals(3, d.counters().policyFaults());
        assertTrue(callbacks.closed);

        RecordingCc completions = new RecordingCc(MIB, 3);
        d.congestionAvoidance(completions);
        d.submit(spec.write(2, 0, 1, MIB, 0, 2));
        d.schedule();
        completions.throwOnCallbacks = true;
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(4, d.counters().policyFaults());
        assertTrue(completions.closed);
        assertEquals(2, done.size());
        assertTrue(done.stream().allMatch(x -> x.status() == MpStatus.SUCCESS));
    }

    @Test
    void closeClosesBothSessionsOnceAndRefusesWork() {
        open(1, false);
        RecordingLb lb = new RecordingLb(0);
        RecordingCc cc = new RecordingCc(MIB, 2);
        d.loadBalancer(lb);
        d.congestionAvoidance(cc);
        d.submit(spec.write(1, 0, 1, 4 * MIB, 0, 2));
        d.close();
        assertTrue(lb.closed);
        assertTrue(cc.closed);
        assertEquals(1, lb.closes);
        assertEquals(1, cc.closes);
        d.close();
        assertEquals(1, lb.closes, "idempotent");
        assertEquals(1, cc.closes);
        assertFalse(d.submit(spec.write(2, 0, 1, MIB, 0, 2)));
        assertEquals(0, d.schedule());
        assertTrue(transport.posted.isEmpty());
    }

    @Test
    void failoverTimeoutFiresExactlyAtTheTimeoutAndIsCounted() {
        open(1, false);
        d.submit(spec.write(1, 0, 1, MIB, 0, 2));
        paths.state(0, PathState.DOWN);
        d.pathsChanged();
        d.tick(clock += 1);
        d.tick(clock += FAILOVER - 1);
        assertTrue(done.isEmpty());
        d.tick(clock += 1);
        assertEquals(1, done.size());
        assertEquals(MpStatus.PATH_FAILURE, done.get(0).status());
        assertEquals("no usable path for 1000 ms", done.get(0).detail());
        assertEquals(1, d.counters().failoverTimeouts());
        assertEquals(clock, paths.nowNanos(), "the path table runs on the engine's clock");
    }

    @Test
    void failoverTimeoutCountsFromAClockOfZero() {
        open(1, false);
        clock = 0;
        d.submit(spec.write(1, 0, 1, MIB, 0, 2));
        paths.state(0, PathState.DOWN);
        d.tick(clock);
        d.tick(clock += FAILOVER / 2);
        d.tick(clock += FAILOVER / 2);
        assertEquals(1, done.size(), "the pathless period started at time 0");
    }

    @Test
    void idleConnectionWithoutPathsNeverTimesOut() {
        open(1, false);
        paths.state(0, PathState.DOWN);
        d.tick(clock += 2 * FAILOVER);
        d.tick(clock += 2 * FAILOVER);
        assertEquals(0, d.counters().failoverTimeouts());
        d.submit(spec.write(1, 0, 1, MIB, 0, 2));
        d.tick(clock += 1);
        d.tick(clock += FAILOVER / 2);
        assertTrue(done.isEmpty(), "the timeout starts with the first unfinished message");
    }

    @Test
    void workInFlightOnAUsablePathNeverTimesOut() {
        open(2, false);
        paths.state(0, PathState.DOWN);
        d.submit(spec.write(1, 0, 1, MIB, 0, 2));
        d.schedule();
        d.tick(clock += 2 * FAILOVER);
        d.tick(clock += 2 * FAILOVER);
        assertTrue(done.isEmpty());
        assertEquals(0, d.counters().failoverTimeouts());
    }

    @Test
    void aFailedMessageDropsItsQueuedRepostsAndIsNotPostedAgain() {
        open(2, false);
        d.submit(spec.write(1, 0, 1, 4 * MIB, 0, 2));
        assertEquals(4, d.schedule());
        List<RecordingTransport.Chunk> chunks = transport.take();
        paths.state(1, PathState.DOWN);
        for (RecordingTransport.Chunk c : chunks) {
            if (c.path() == 0) {
                complete(c, IbvWcStatus.RETRY_EXC_ERR);
            }
        }
        assertEquals(0, d.schedule(), "no usable path for the re-posts");
        assertEquals(1, d.failAll(MpStatus.PATH_FAILURE, "gone", false));
        assertTrue(done.isEmpty(), "chunks on path 1 are still in flight");
        paths.state(0, PathState.UP);
        paths.state(1, PathState.UP);
        d.pathsChanged();
        d.tick(clock += 1);
        assertEquals(0, d.schedule(), "a failed message's ranges are not posted again");
        for (RecordingTransport.Chunk c : chunks) {
            if (c.path() == 1) {
                complete(c, IbvWcStatus.SUCCESS);
            }
        }
        assertEquals(1, done.size());
        assertEquals(MpStatus.PATH_FAILURE, done.get(0).status());
        assertEquals(2 * MIB, done.get(0).bytes());
        assertEquals(0, d.messagesInProgress());
    }

    @Test
    void abandoningThePathsOfAFailedMessageCompletesIt() {
        open(2, true);
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        d.schedule();
        observed.clear();
        d.failAll(MpStatus.FLUSHED, "closing", false);
        assertTrue(done.isEmpty());
        assertEquals(1, d.abandonPath(0));
        assertEquals(0, paths.inFlightChunks(0));
        assertEquals(1, paths.chunksFailed(0));
        assertEquals(List.of("completed 0 " + MIB + " 0 FLUSHED"), observed);
        assertTrue(done.isEmpty());
        assertEquals(1, d.abandonPath(1));
        assertEquals(1, done.size());
        assertEquals(MpStatus.FLUSHED, done.get(0).status());
        assertEquals(0, d.abandonPath(1), "nothing left on path 1");
    }

    @Test
    void aFailedZeroLengthSendIsPostedAgainElsewhere() {
        open(2, false);
        d.submit(spec.sendSmall(1, 0, 1, 0, 9));
        assertEquals(1, d.schedule());
        RecordingTransport.Chunk first = transport.take().get(0);
        complete(first, IbvWcStatus.RETRY_EXC_ERR);
        assertEquals(1, d.schedule());
        RecordingTransport.Chunk again = transport.take().get(0);
        assertTrue(again.path() != first.path());
        assertEquals(0, again.length());
        complete(again, IbvWcStatus.SUCCESS);
        assertTrue(done.isEmpty(), "held until the failed path is fenced");
        assertEquals(1, d.counters().fenceWaits());
        assertEquals(1, d.pathFenced(first.path()));
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
        assertEquals(1, d.counters().chunksReposted());
    }

    @Test
    void aZeroLengthSendWaitsForAPath() {
        open(1, false);
        paths.state(0, PathState.DOWN);
        d.submit(spec.sendSmall(1, 0, 1, 0, 9));
        assertEquals(0, d.schedule());
        paths.state(0, PathState.UP);
        d.pathsChanged();
        assertEquals(1, d.schedule());
        completeAll(IbvWcStatus.SUCCESS);
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
    }

    @Test
    void aRefusedPostOnAnUpPathIsNoPathChange() {
        open(2, false);
        RecordingLb lb = new RecordingLb(1);
        d.loadBalancer(lb);
        transport.refuse = true;
        paths.state(1, PathState.RECOVERING);
        lb.path = 0;
        d.submit(spec.write(1, 0, 1, 100, 0, 2));
        d.schedule();
        assertFalse(lb.events.contains("paths"), "refused on an UP path: no change to report");
        assertEquals(2, d.counters().postRefused());
    }

    /** A load balancer that names one path and records what it is told. */
    private static final class RecordingLb implements LoadBalancerSession {
        final List<String> events = new ArrayList<>();
        int path;
        boolean setsNothing;
        boolean throwOnStart;
        boolean throwOnPlace;
        boolean throwOnComplete;
        boolean throwOnPaths;
        boolean closed;
        int closes;

        RecordingLb(int path) {
            this.path = path;
        }

        @Override
        public void onMessageStart(long messageId, long totalBytes) {
            events.add("start " + totalBytes);
            if (throwOnStart) {
                throw new IllegalStateException("policy bug");
            }
        }

        @Override
        public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
            if (throwOnPlace) {
                throw new IllegalStateException("policy bug");
            }
            if (!setsNothing) {
                out.set(path, Long.MAX_VALUE);
            }
            return true;
        }

        @Override
        public void onChunkComplete(int p, long bytes, long latencyNanos, ChunkOutcome outcome) {
            events.add("complete " + p + " " + bytes + " " + outcome);
            if (throwOnComplete) {
                throw new IllegalStateException("policy bug");
            }
        }

        @Override
        public void onPathsChanged() {
            events.add("paths");
            if (throwOnPaths) {
                throw new IllegalStateException("policy bug");
            }
        }

        @Override
        public void close() {
            closes++;
            closed = true;
        }
    }

    /** A congestion-avoidance session with fixed answers that counts what it is told. */
    private static final class RecordingCc implements CongestionAvoidanceSession {
        final long chunkBytes;
        final int window;
        int completions;
        int pathChanges;
        int closes;
        boolean closed;
        boolean throwOnChunkBytes;
        boolean throwOnWindow;
        boolean throwOnCallbacks;
        long pacing;
        boolean throwOnPacing;

        RecordingCc(long chunkBytes, int window) {
            this.chunkBytes = chunkBytes;
            this.window = window;
        }

        @Override
        public long maxChunkBytes(int path) {
            if (throwOnChunkBytes) {
                throw new IllegalStateException("policy bug");
            }
            return chunkBytes;
        }

        @Override
        public int maxOutstandingChunks(int path) {
            if (throwOnWindow) {
                throw new IllegalStateException("policy bug");
            }
            return window;
        }

        @Override
        public long pacingBitsPerSecond(int path) {
            if (throwOnPacing) {
                throw new IllegalStateException("policy bug");
            }
            return pacing;
        }

        @Override
        public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
            if (throwOnCallbacks) {
                throw new IllegalStateException("policy bug");
            }
            completions++;
        }

        @Override
        public void onPathsChanged() {
            if (throwOnCallbacks) {
                throw new IllegalStateException("policy bug");
            }
            pathChanges++;
        }

        @Override
        public void close() {
            closes++;
            closed = true;
        }
    }
}
