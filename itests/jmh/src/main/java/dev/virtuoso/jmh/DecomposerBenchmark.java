package dev.virtuoso.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.decomposer.ChunkTransport;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionWiring;
import dev.virtuoso.decomposer.MessageCompletionSink;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * Decomposer plus placement, per chunk: one MP_WRITE of {@value #CHUNKS} chunks is submitted, placed
 * by the built-in round robin with the built-in fixed chunk size over {@code paths} paths, and every
 * chunk's completion is handled, until the message completes. The transport only records wr_ids (no
 * verbs): this measures the decomposer's own cost per chunk.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecomposerBenchmark {
    static final int CHUNKS = 64;
    private static final long CHUNK_BYTES = 64 << 10;

    @Param({"2", "4"})
    public int paths;

    private PathTable table;
    private Decomposition decomposition;
    private final MessageSpec spec = new MessageSpec();
    private final IbvWc wc = new IbvWc();
    private final RecordingTransport transport = new RecordingTransport();
    private final CompletionCount sink = new CompletionCount();
    private long wrId;

    /** Remembers posted wr_ids and lengths in preallocated arrays. */
    static final class RecordingTransport implements ChunkTransport {
        final long[] wrIds = new long[1024];
        final int[] lengths = new int[1024];
        int count;

        @Override
        public boolean post(int path, long id, IbvWrOpcode opcode, long localAddr, int length, int lkey,
                long remoteAddr, int rkey, int immData) {
            wrIds[count] = id;
            lengths[count] = length;
            count++;
            return true;
        }

        @Override
        public int sendQueueDepth(int path) {
            return 128;
        }

        @Override
        public void pathFailed(int path, IbvWcStatus status) {
            throw new IllegalStateException("path " + path + " failed: " + status);
        }
    }

    /** Counts MP completions; any failure stops the benchmark. */
    static final class CompletionCount implements MessageCompletionSink {
        long completed;

        @Override
        public void onMessageComplete(long id, long tag, MpOpcode opcode, MpStatus status, long bytes, int n,
                String detail) {
            if (status != MpStatus.SUCCESS) {
                throw new IllegalStateException("MP_WRITE failed: " + status + " " + detail);
            }
            completed++;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        table = new PathTable(16);
        for (int i = 0; i < paths; i++) {
            table.add();
        }
        decomposition = new DecomposerComponent().newDecomposition(
                new DecompositionConfig("jmh", 64, 1024, 64 << 10, CHUNK_BYTES, 16, TimeUnit.SECONDS.toNanos(10), 1L << 60 /* the chunk tag, as the engine assigns it */),
                new DecompositionWiring(table, transport, sink, null, null));
        decomposition.tick(System.nanoTime());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        decomposition.close();
    }

    /** @return MP completions so far */
    @Benchmark
    @OperationsPerInvocation(CHUNKS)
    public long writePerChunk() {
        long before = sink.completed;
        decomposition.tick(System.nanoTime());
        spec.write(++wrId, 0x10_0000_0000L, 7, CHUNKS * CHUNK_BYTES, 0x20_0000_0000L, 9);
        if (!decomposition.submit(spec)) {
            throw new IllegalStateException("submit refused");
        }
        while (sink.completed == before) {
            transport.count = 0;
            if (decomposition.schedule() == 0 && transport.count == 0) {
                throw new IllegalStateException("nothing placed, nothing in flight");
            }
            for (int i = 0; i < transport.count; i++) {
                wc.set(transport.wrIds[i], IbvWcStatus.SUCCESS, IbvWcOpcode.RDMA_WRITE, transport.lengths[i], 0,
                        0, 1, 0, 0);
                decomposition.onCompletion(wc);
            }
        }
        return sink.completed;
    }
}
