package dev.virtuoso.decomposer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathState;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionWiring;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

class DefaultDecompositionTest {
    private static final long MIB = 1 << 20;
    record Done(long wrId, MpOpcode opcode, MpStatus status, long bytes, int paths, String detail) {
    }

    private final RecordingTransport transport = new RecordingTransport();
    private final List<Done> done = new ArrayList<>();
    private final MessageSpec spec = new MessageSpec();
    private final IbvWc wc = new IbvWc();
    private PathTable paths;
    private Decomposition d;
    private long clock = 1_000_000_000L;

    @BeforeEach
    void setUp() {
        open(3, 4, 1000);
    }

    private void open(int pathCount, int chunksPerPath, long failoverMillis) {
        paths = new PathTable(16);
        transport.paths = paths;
        for (int i = 0; i < pathCount; i++) {
            paths.add();
        }
        d = new DecomposerComponent().newDecomposition(
                new DecompositionConfig("t", 64, 256, 64 * 1024, MIB, chunksPerPath, failoverMillis * 1_000_000L, 1L << 60),
                new DecompositionWiring(paths, transport,
                        (wrId, tag, op, st, bytes, n, detail) -> done.add(new Done(wrId, op, st, bytes, n, detail)),
                        null, null));
        d.tick(clock);
    }

    private void complete(RecordingTransport.Chunk c, IbvWcStatus status) {
        wc.set(c.wrId(), status, IbvWcOpcode.RDMA_WRITE, c.length(), 0, 0, 1, 0, 0);
        d.onCompletion(wc);
    }

    /** Runs placement and completion until nothing is in flight, completing in random order. */
    private List<RecordingTransport.Chunk> drain(Random rnd) {
        List<RecordingTransport.Chunk> all = new ArrayList<>();
        d.schedule();
        while (!transport.posted.isEmpty()) {
            List<RecordingTransport.Chunk> batch = transport.take();
            all.addAll(batch);
            Collections.shuffle(batch, rnd);
            for (RecordingTransport.Chunk c : batch) {
                complete(c, IbvWcStatus.SUCCESS);
            }
            d.schedule();
        }
        return all;
    }

    @Test
    void largeWriteIsSplitIntoChunksCoveringEveryByteOnce() {
        long len = 10 * MIB + 123;
        d.submit(spec.write(7, 1000, 11, len, 50_000, 22));
        List<RecordingTransport.Chunk> chunks = drain(new Random(1));
        assertEquals(11, chunks.size());
        boolean[] seen = new boolean[(int) (len / 1024) + 1];
        long total = 0;
        for (RecordingTransport.Chunk c : chunks) {
            assertTrue(c.length() <= MIB);
            assertEquals(IbvWrOpcode.RDMA_WRITE, c.opcode());
            long off = c.localAddr() - 1000;
            assertEquals(50_000 + off, c.remoteAddr());
            assertEquals(0, off % 1024);
            assertFalse(seen[(int) (off / 1024)], "offset placed twice: " + off);
            seen[(int) (off / 1024)] = true;
            total += c.length();
        }
        assertEquals(len, total);
        assertEquals(1, done.size());
        assertEquals(new Done(7, MpOpcode.WRITE, MpStatus.SUCCESS, len, 3, null), done.get(0));
        assertEquals(len, paths.completedBytes(0) + paths.completedBytes(1) + paths.completedBytes(2));
    }

    @Test
    void completionOnlyAfterTheLastChunk() {
        d.submit(spec.read(1, 0, 1, 3 * MIB, 0, 2));
        d.schedule();
        List<RecordingTransport.Chunk> chunks = transport.take();
        assertEquals(3, chunks.size());
        assertEquals(IbvWrOpcode.RDMA_READ, chunks.get(0).opcode());
        complete(chunks.get(2), IbvWcStatus.SUCCESS);
        complete(chunks.get(0), IbvWcStatus.SUCCESS);
        assertTrue(done.isEmpty());
        complete(chunks.get(1), IbvWcStatus.SUCCESS);
        assertEquals(1, done.size());
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
    }

    @Test
    void messagesBelowTheThresholdGoWholeOnOnePath() {
        d.submit(spec.write(1, 0, 1, 64 * 1024 - 1, 0, 2));
        d.submit(spec.sendSmall(2, 0, 1, 100, 42));
        d.schedule();
        List<RecordingTransport.Chunk> chunks = transport.take();
        assertEquals(2, chunks.size());
        assertEquals(64 * 1024 - 1, chunks.get(0).length());
        assertEquals(IbvWrOpcode.SEND_WITH_IMM, chunks.get(1).opcode());
        assertEquals(42, chunks.get(1).imm());
        assertTrue(chunks.get(0).path() != chunks.get(1).path(), "round robin moves on");
    }

    @Test
    void theThresholdKeepsMessagesWholeEvenAboveTheChunkSize() {
        paths = new PathTable(4);
        transport.paths = paths;
        paths.add();
        paths.add();
        d = new DecomposerComponent().newDecomposition(
                new DecompositionConfig("t", 8, 16, 100_000, 4096, 4, 1_000_000_000L, 1L << 60),
                new DecompositionWiring(paths, transport, (a, b, c, e, f, g, h) -> { }, null, null));
        d.tick(clock);
        d.submit(spec.write(1, 0, 1, 99_999, 0, 2));
        d.schedule();
        assertEquals(1, transport.posted.size());
        assertEquals(99_999, transport.take().get(0).length());
        d.submit(spec.write(2, 0, 1, 100_000, 0, 2));
        d.schedule();
        assertEquals(7, transport.posted.size(), "4 KiB chunks, 4 per path, one slot taken by the whole message");
    }

    @Test
    void windowsBoundChunksInFlightPerPath() {
        d.submit(spec.write(1, 0, 1, 100 * MIB, 0, 2));
        d.schedule();
        assertEquals(12, transport.posted.size(), "3 paths x 4 chunks");
        assertEquals(4, paths.inFlightChunks(0));
        assertEquals(4 * MIB, paths.inFlightBytes(1));
        RecordingTransport.Chunk first = transport.posted.get(0);
        complete(first, IbvWcStatus.SUCCESS);
        d.schedule();
        assertEquals(13, transport.posted.size());
        assertEquals(first.path(), transport.posted.get(12).path(), "only the path with room gets the next chunk");
    }

    @Test
    void zeroLengthWriteCompletesAtOnceAndZeroLengthSendPostsOneChunk() {
        d.submit(spec.write(1, 0, 1, 0, 0, 2));
        assertEquals(1, done.size());
        assertEquals(0, done.get(0).paths());
        d.submit(spec.sendSmall(2, 0, 1, 0, 5));
        d.schedule();
        assertEquals(1, transport.posted.size());
        assertEquals(0, transport.posted.get(0).length());
        assertEquals(1, done.size());
        complete(transport.take().get(0), IbvWcStatus.SUCCESS);
        assertEquals(2, done.size());
        assertEquals(MpStatus.SUCCESS, done.get(1).status());
    }

    @Test
    void zeroLengthSendIsPostedEvenWhenThePolicyDeclinesToPlaceNothing() {
        PinnedSession declinesEmpty = new PinnedSession(1) {
            @Override
            public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
                return remainingBytes > 0 && super.place(messageId, remainingBytes, out);
            }
        };
        d.loadBalancer(declinesEmpty);
        d.submit(spec.sendSmall(2, 0, 1, 0, 5));
        d.submit(spec.sendSmall(3, 0, 1, 10, 6));
        d.schedule();
        assertEquals(2, transport.posted.size(), "the empty SEND must not block the one behind it");
        assertEquals(0, transport.posted.get(0).length());
        for (RecordingTransport.Chunk c : transport.take()) {
            complete(c, IbvWcStatus.SUCCESS);
        }
        assertEquals(2, done.size());
        assertTrue(done.stream().allMatch(x -> x.status() == MpStatus.SUCCESS));
    }

    @Test
    void chunksOfAFailedPathArePostedAgainElsewhere() {
        d.submit(spec.write(1, 0, 1, 6 * MIB, 0, 2));
        d.schedule();
        List<RecordingTransport.Chunk> chunks = transport.take();
        assertEquals(6, chunks.size());
        for (RecordingTransport.Chunk c : chunks) {
            complete(c, c.path() == 0 ? IbvWcStatus.RETRY_EXC_ERR : IbvWcStatus.SUCCESS);
        }
        assertEquals(PathState.RECOVERING, paths.state(0));
        assertEquals(List.of(0), transport.failedPaths);
        assertTrue(done.isEmpty());
        List<RecordingTransport.Chunk> again = drain(new Random(2));
        assertEquals(2, again.size());
        for (RecordingTransport.Chunk c : again) {
            assertTrue(c.path() != 0);
        }
        assertTrue(done.isEmpty(), "held until path 0 is fenced");
        d.pathFenced(0);
        assertEquals(1, done.size());
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
        assertEquals(6 * MIB, done.get(0).bytes());
        assertEquals(2, d.counters().chunksReposted());
    }

    @Test
    void remoteAccessErrorFailsOnlyItsRequest() {
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        d.submit(spec.write(2, 0, 1, MIB, 0, 3));
        d.schedule();
        List<RecordingTransport.Chunk> chunks = transport.take();
        assertEquals(3, chunks.size());
        complete(chunks.get(0), IbvWcStatus.REM_ACCESS_ERR);
        assertTrue(done.isEmpty(), "waits for its other chunk");
        complete(chunks.get(1), IbvWcStatus.SUCCESS);
        assertEquals(MpStatus.REMOTE_ACCESS_ERROR, done.get(0).status());
        assertEquals(1, done.get(0).wrId());
        complete(chunks.get(2), IbvWcStatus.SUCCESS);
        assertEquals(MpStatus.SUCCESS, done.get(1).status());
    }

    @Test
    void noUsablePathFailsWorkAfterTheFailoverTimeout() {
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        for (int p = 0; p < 3; p++) {
            paths.state(p, PathState.RECOVERING);
        }
        d.pathsChanged();
        assertEquals(0, d.schedule());
        d.tick(clock += 500_000_000L);
        d.tick(clock += 600_000_000L);
        assertTrue(done.isEmpty(), "timeout counts from the first pathless tick");
        d.tick(clock += 500_000_000L);
        assertEquals(1, done.size());
        assertEquals(MpStatus.PATH_FAILURE, done.get(0).status());
    }

    @Test
    void pathsUpButUnusableInThePolicyViewAlsoRunTheFailoverTimeout() {
        // e.g. a path monitor keeping every recovered path on probation while probes keep failing
        boolean[] usable = {true};
        d.policyView(new PathStateView() {
            @Override
            public int pathCount() {
                return paths.pathCount();
            }

            @Override
            public boolean usable(int path) {
                return usable[0];
            }

            @Override
            public long inFlightBytes(int path) {
                return paths.inFlightBytes(path);
            }

            @Override
            public int inFlightChunks(int path) {
                return paths.inFlightChunks(path);
            }

            @Override
            public double probedCapacity(int path) {
                return 0;
            }

            @Override
            public double estimatedRate(int path) {
                return 0;
            }

            @Override
            public long smoothedLatencyNanos(int path) {
                return 0;
            }

            @Override
            public long completedBytes(int path) {
                return paths.completedBytes(path);
            }

            @Override
            public int consecutiveErrors(int path) {
                return 0;
            }

            @Override
            public long nowNanos() {
                return clock;
            }
        });
        usable[0] = false;
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        assertEquals(0, d.schedule(), "nothing placed on unusable paths");
        d.tick(clock += 600_000_000L);
        d.tick(clock += 600_000_000L);
        assertTrue(done.isEmpty());
        d.tick(clock += 500_000_000L);
        assertEquals(1, done.size());
        assertEquals(MpStatus.PATH_FAILURE, done.get(0).status());
    }

    @Test
    void pathComingBackBeforeTheTimeoutCarriesTheWork() {
        d.submit(spec.write(1, 0, 1, 2 * MIB, 0, 2));
        for (int p = 0; p < 3; p++) {
            paths.state(p, PathState.RECOVERING);
        }
        d.pathsChanged();
        d.tick(clock += 900_000_000L);
        paths.state(2, PathState.UP);
        d.pathsChanged();
        d.tick(clock += 900_000_000L);
        List<RecordingTransport.Chunk> chunks = drain(new Random(3));
        assertEquals(2, chunks.size());
        assertTrue(chunks.stream().allMatch(c -> c.path() == 2));
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
    }

    @Test
    void abandonedChunksAreFlushedAndLateCompletionsIgnored() {
        d.submit(spec.write(1, 0, 1, 3 * MIB, 0, 2));
        d.schedule();
        List<RecordingTransport.Chunk> chunks = transport.take();
        assertEquals(3, d.failAll(MpStatus.FLUSHED, "closing", true) + 2);
        assertEquals(MpStatus.FLUSHED, done.get(0).status());
        complete(chunks.get(0), IbvWcStatus.WR_FLUSH_ERR);
        assertEquals(1, d.counters().staleCompletions());
        assertEquals(0, paths.inFlightChunks(0));
        assertEquals(1, done.size());
    }

    @Test
    void abandoningAPathRepostsItsChunks() {
        d.submit(spec.write(1, 0, 1, 3 * MIB, 0, 2));
        d.schedule();
        List<RecordingTransport.Chunk> first = transport.take();
        paths.state(1, PathState.DOWN);
        assertEquals(1, d.abandonPath(1));
        List<RecordingTransport.Chunk> again = drain(new Random(4));
        assertEquals(1, again.size());
        assertTrue(again.get(0).path() != 1);
        assertTrue(done.isEmpty(), "the first round's other chunks are still in flight");
        for (RecordingTransport.Chunk c : first) {
            complete(c, c.path() == 1 ? IbvWcStatus.WR_FLUSH_ERR : IbvWcStatus.SUCCESS);
        }
        assertTrue(done.isEmpty(), "held until path 1 is fenced");
        d.pathFenced(1);
        assertEquals(1, done.size());
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
        assertEquals(1, d.counters().staleCompletions(), "the abandoned chunk's flush is ignored");
    }

    @Test
    void sessionSwapAndFullPathAsksAgainThenFallsBackOnFault() {
        PinnedSession pinned = new PinnedSession(1);
        d.loadBalancer(pinned);
        d.submit(spec.write(1, 0, 1, 10 * MIB, 0, 2));
        d.schedule();
        assertEquals(4, transport.posted.size(), "path 1 window is 4 chunks");
        assertTrue(transport.posted.stream().allMatch(c -> c.path() == 1));
        assertEquals(3, pinned.calls - 4, "asked once per path when the chosen path is full");
        assertTrue(d.counters().placementsDeferred() >= 3);
        pinned.fail = true;
        complete(transport.posted.get(0), IbvWcStatus.SUCCESS);
        d.schedule();
        assertTrue(pinned.closed, "a throwing session is closed and replaced by the built-in");
        assertEquals(1, d.counters().policyFaults());
        List<RecordingTransport.Chunk> rest = drain(new Random(5));
        assertTrue(rest.stream().anyMatch(c -> c.path() == 0));
        assertEquals(MpStatus.SUCCESS, done.get(0).status());
        PinnedSession second = new PinnedSession(2);
        d.loadBalancer(second);
        d.loadBalancer(null);
        assertTrue(second.closed);
    }

    @Test
    void refusedPostTriesAnotherPath() {
        open(2, 4, 1000);
        transport.refuse = true;
        d.submit(spec.write(1, 0, 1, MIB, 0, 2));
        assertEquals(0, d.schedule());
        assertEquals(2, d.counters().postRefused());
        transport.refuse = false;
        d.tick(clock += 1000);
        assertEquals(1, d.schedule());
        assertNull(done.isEmpty() ? null : done.get(0));
    }

    /** A load balancer that always names one path and can be made to throw. */
    private static class PinnedSession implements LoadBalancerSession {
        final int path;
        int calls;
        boolean fail;
        boolean closed;

        PinnedSession(int path) {
            this.path = path;
        }

        @Override
        public void onMessageStart(long messageId, long totalBytes) {
        }

        @Override
        public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
            calls++;
            if (fail) {
                throw new IllegalStateException("policy bug");
            }
            out.set(path, Long.MAX_VALUE);
            return true;
        }

        @Override
        public void onChunkComplete(int p, long bytes, long latencyNanos, ChunkOutcome outcome) {
        }

        @Override
        public void onPathsChanged() {
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
