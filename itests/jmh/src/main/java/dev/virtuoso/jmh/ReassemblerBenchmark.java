package dev.virtuoso.jmh;

import java.nio.ByteBuffer;
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

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * The reassembler per MP_SEND / MP_RECV completion, without the network: two real reassemblies
 * (sender {@code a}, receiver {@code b}) from {@code ReassemblerComponent}, their control messages
 * landed in each other's slots in memory, their slot SRQs recorded by {@link ReassemblyFixture}. One
 * invocation handles {@value #BATCH} messages in steady state (receives posted and advertised in one
 * control message, as the engine's duty cycle batches them):
 * <ul>
 * <li>{@link #smallMessage}: MP_RECV posted and advertised, the sender reserves a slot credit, the
 * SEND_WITH_IMM completion of the receiver's SRQ slot is handled ({@code onCompletion}: sequence
 * check, copy from the slot into the MP_RECV buffer, slot reposted), the MP_RECV completion is
 * delivered, credits go back.</li>
 * <li>{@link #largeMessage}: MP_RECV posted and advertised, the sender reserves it and reports it
 * placed (after the decomposer's RDMA WRITE chunks completed: the receiver gets no CQE for them),
 * the sender takes the placement notice (a slot credit, its payload written), the notice's
 * SEND_WITH_IMM completion of the receiver's SRQ slot is handled ({@code onCompletion}) and the
 * MP_RECV completion is delivered, credits go back.</li>
 * </ul>
 * The payload bytes are put into the slots by the "RNIC" once, at setup: the cost measured is the
 * reassembler's own, both sides of the protocol included.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReassemblerBenchmark {
    static final int BATCH = 16;
    static final int LARGE_BYTES = 1 << 20;
    static final int PATHS = 4;

    /** Steady state of the small-message path; {@code smallBytes} is the SEND's length. */
    @State(Scope.Thread)
    public static class Small {
        @Param({"64", "4096"})
        public int smallBytes;

        ReassemblyFixture f;
        ByteBuffer region;
        final SendTarget target = new SendTarget();
        final IbvWc wc = new IbvWc();
        long wrId;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            f = new ReassemblyFixture(64 << 10);
            f.fillSlots();
            region = ByteBuffer.allocateDirect(BATCH * smallBytes);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            f.close();
        }
    }

    /** Steady state of the large-message path ({@value #LARGE_BYTES}-byte messages). */
    @State(Scope.Thread)
    public static class Large {
        ReassemblyFixture f;
        ByteBuffer region;
        final SendTarget target = new SendTarget();
        long wrId;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            f = new ReassemblyFixture(64 << 10);
            region = ByteBuffer.allocateDirect(BATCH * LARGE_BYTES);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            f.close();
        }
    }

    /** @return MP_RECV completions delivered so far */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long smallMessage(Small s) throws ReassemblyException {
        ReassemblyFixture f = s.f;
        int len = s.smallBytes;
        for (int k = 0; k < BATCH; k++) {
            f.b.postReceive(++s.wrId, s.region, k * len, len, ReassemblyFixture.REGION_ADDR + (long) k * len,
                    ReassemblyFixture.REGION_RKEY, false);
        }
        f.moveFromB();
        for (int k = 0; k < BATCH; k++) {
            if (f.a.reserveSend(len, s.target) != Reassembly.SMALL) {
                throw new IllegalStateException("small send not reserved");
            }
            // the SEND_WITH_IMM landed in the receiver's oldest posted slot
            s.wc.set(f.bSrq.take(), IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, len, s.target.immData(), IbvWc.WITH_IMM,
                    1, 2, 0);
            f.b.onCompletion(s.wc);
            f.a.sendFinished(s.target.sequence(), false, MpStatus.SUCCESS, len, 1);
        }
        f.b.deliver(f.sink);
        f.moveFromB();
        f.moveFromA();
        return f.sink.delivered;
    }

    /** @return MP_RECV completions delivered so far */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long largeMessage(Large s) throws ReassemblyException {
        ReassemblyFixture f = s.f;
        for (int k = 0; k < BATCH; k++) {
            f.b.postReceive(++s.wrId, s.region, k * LARGE_BYTES, LARGE_BYTES,
                    ReassemblyFixture.REGION_ADDR + (long) k * LARGE_BYTES, ReassemblyFixture.REGION_RKEY, true);
        }
        f.moveFromB();
        for (int k = 0; k < BATCH; k++) {
            if (f.a.reserveSend(LARGE_BYTES, s.target) != Reassembly.LARGE) {
                throw new IllegalStateException("large send not reserved");
            }
            // the decomposer's WRITE chunks to target.remoteAddr() all completed
            f.a.sendFinished(s.target.sequence(), true, MpStatus.SUCCESS, LARGE_BYTES, PATHS);
        }
        f.moveFromA();
        f.b.deliver(f.sink);
        f.moveFromB();
        f.moveFromA();
        return f.sink.delivered;
    }
}
