package dev.virtuoso.jmh;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
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

/**
 * The receive path's ICRC check against datagrams with a wrong ICRC from anyone who can reach the
 * UDP port: {@code alternating} sends two lengths that share a slot of the check's cache (each
 * packet misses it), {@code same} one length. The check should cost about one CRC over the packet
 * either way.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IcrcForgedBenchmark {
    private static final byte[] SRC_IP = {10, 0, 0, 1};
    private static final byte[] DST_IP = {10, 0, 0, 2};

    /** UDP payload length of the first datagram; the second is 16 bytes longer (same cache slot). */
    @Param({"1040", "4096"})
    public int length;

    private final Icrc crc = new Icrc();
    private final ByteBuffer[] datagrams = new ByteBuffer[2];
    private int next;

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 2; i++) {
            int len = length + 16 * i;
            ByteBuffer b = ByteBuffer.allocateDirect(len);
            for (int k = 0; k < len; k++) {
                b.put(k, (byte) r.nextInt());
            }
            b.put(0, (byte) 0x04).put(1, (byte) 0).putShort(2, (short) 0xFFFF);
            datagrams[i] = b;
        }
    }

    /** @return whether the forged datagram passed (it must not) */
    @Benchmark
    public boolean alternating() {
        ByteBuffer b = datagrams[next ^= 1];
        return crc.verify(SRC_IP, DST_IP, 49152, 4791, b, 0, b.capacity());
    }

    /** @return whether the forged datagram passed (it must not) */
    @Benchmark
    public boolean same() {
        ByteBuffer b = datagrams[0];
        return crc.verify(SRC_IP, DST_IP, 49152, 4791, b, 0, b.capacity());
    }
}
