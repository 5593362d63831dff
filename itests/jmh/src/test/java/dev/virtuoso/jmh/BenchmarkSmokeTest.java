package dev.virtuoso.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** Runs each benchmark body a few times outside JMH: the benchmarks work, nothing is timed here. */
class BenchmarkSmokeTest {
    @Test
    void packetCodecBenchmarkEncodesAndDecodes() {
        for (boolean icrc : new boolean[] {true, false}) {
            for (int payload : new int[] {0, 1024, 4096}) {
                PacketCodecBenchmark b = new PacketCodecBenchmark();
                b.payload = payload;
                b.icrc = icrc;
                b.setUp();
                ByteBuffer d = b.encode();
                assertTrue(d.remaining() >= 12 + 16 + payload + 4, "datagram length " + d.remaining());
                assertEquals(1, b.decode());
            }
        }
    }

    @Test
    void decomposerBenchmarkCompletesOneMessagePerInvocation() {
        DecomposerBenchmark b = new DecomposerBenchmark();
        b.paths = 4;
        b.setUp();
        for (int i = 1; i <= 5; i++) {
            assertEquals(i, b.writePerChunk());
        }
        b.tearDown();
    }
}
