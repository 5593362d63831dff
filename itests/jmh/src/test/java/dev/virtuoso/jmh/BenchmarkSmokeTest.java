package dev.virtuoso.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    void forgedDatagramsFailTheIcrcCheck() {
        for (int length : new int[] {1040, 4096}) {
            IcrcForgedBenchmark b = new IcrcForgedBenchmark();
            b.length = length;
            b.setUp();
            for (int i = 0; i < 10; i++) {
                assertFalse(b.alternating(), "alternating lengths, " + length);
                assertFalse(b.same(), "one length, " + length);
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

    @Test
    void reassemblerSmallMessagesAreCopiedDeliveredInOrderAndCreditsComeBack() throws Exception {
        for (int len : new int[] {64, 4096}) {
            ReassemblerBenchmark b = new ReassemblerBenchmark();
            ReassemblerBenchmark.Small s = new ReassemblerBenchmark.Small();
            s.smallBytes = len;
            s.setUp();
            for (int i = 1; i <= 10; i++) {
                assertEquals((long) i * ReassemblerBenchmark.BATCH, b.smallMessage(s));
                for (int k = 0; k < ReassemblerBenchmark.BATCH * len; k++) {
                    assertEquals(ReassemblyFixture.pattern(k % len), s.region.get(k), "byte " + k);
                    s.region.put(k, (byte) 0);
                }
            }
            assertEquals(10L * ReassemblerBenchmark.BATCH * len, s.f.b.counters().bytesCopied());
            // one credit per message, and one per control message of the sender's (its credits for b's
            // messages), all back but fewer than the threshold of half the slots
            long owed = 10L * ReassemblerBenchmark.BATCH + s.f.b.counters().controlReceived();
            long returned = s.f.b.counters().creditsReturned();
            assertTrue(returned <= owed && owed - returned < ReassemblyFixture.SLOTS / 2,
                    returned + " of " + owed + " credits returned");
            assertEquals(ReassemblyFixture.SLOTS, s.f.bSrq.posted(), "every slot reposted");
            s.tearDown();
        }
    }

    @Test
    void reassemblerLargeMessagesCompleteOnThePlacementReport() throws Exception {
        ReassemblerBenchmark b = new ReassemblerBenchmark();
        ReassemblerBenchmark.Large s = new ReassemblerBenchmark.Large();
        s.setUp();
        for (int i = 1; i <= 10; i++) {
            assertEquals((long) i * ReassemblerBenchmark.BATCH, b.largeMessage(s));
        }
        assertEquals(10L * ReassemblerBenchmark.BATCH * ReassemblerBenchmark.LARGE_BYTES, s.f.sink.bytes);
        assertEquals(10L * ReassemblerBenchmark.BATCH, s.f.b.counters().largeReceived());
        assertEquals(0, s.f.b.counters().bytesCopied(), "large messages are never copied");
        s.tearDown();
    }
}
