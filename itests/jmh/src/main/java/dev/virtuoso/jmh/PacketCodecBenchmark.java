package dev.virtuoso.jmh;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * Soft RNIC packet codec per packet: building an RDMA WRITE FIRST (BTH + RETH) with its ICRC, and
 * decoding one. The payload bytes are already in place (the engine copies them from registered
 * memory; that copy is not the codec's cost), so {@code payload} only changes the ICRC length.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PacketCodecBenchmark {
    private static final byte[] SRC_IP = {10, 0, 0, 1};
    private static final byte[] DST_IP = {10, 0, 0, 2};

    @Param({"0", "1024", "4096"})
    public int payload;

    /** ICRC computed on encode and checked on decode (the UDP wire), or not (the in-process fabric). */
    @Param({"true", "false"})
    public boolean icrc;

    private final PacketBuilder builder = new PacketBuilder();
    private final Icrc crc = new Icrc();
    private final RocePacket packet = new RocePacket();
    private ByteBuffer encoded;
    private int psn;

    @Setup
    public void setUp() {
        int op = payload == 0 ? RcOpcode.WRITE_ONLY : RcOpcode.WRITE_FIRST;
        builder.begin(op, false, 0x123, true, 1, payload).reth(0x1000_0000L, 0x55, payload * 4);
        ByteBuffer b = builder.finish(crc, SRC_IP, DST_IP, 49152, 4791);
        encoded = ByteBuffer.allocateDirect(b.remaining());
        encoded.put(b).flip();
        if (!packet.decode(encoded, 0, encoded.limit())) {
            throw new IllegalStateException("benchmark packet does not decode");
        }
    }

    /** @return the datagram (consumed by JMH so the work is not eliminated) */
    @Benchmark
    public ByteBuffer encode() {
        int op = payload == 0 ? RcOpcode.WRITE_ONLY : RcOpcode.WRITE_FIRST;
        builder.begin(op, false, 0x123, true, ++psn & 0xFFFFFF, payload).reth(0x1000_0000L, 0x55, payload * 4);
        if (icrc) {
            return builder.finish(crc, SRC_IP, DST_IP, 49152, 4791);
        }
        ByteBuffer b = builder.buffer();
        b.limit(builder.length()).position(0);
        return b;
    }

    /** @return the decoded packet's PSN (with {@code icrc}: after checking the ICRC, as the UDP receive path does) */
    @Benchmark
    public int decode() {
        int len = encoded.limit();
        if (icrc && crc.compute(SRC_IP, DST_IP, 49152, 4791, encoded, 0, len) != Icrc.stored(encoded, 0, len)) {
            throw new IllegalStateException("ICRC mismatch");
        }
        if (!packet.decode(encoded, 0, len)) {
            throw new IllegalStateException("decode failed");
        }
        return packet.psn;
    }
}
