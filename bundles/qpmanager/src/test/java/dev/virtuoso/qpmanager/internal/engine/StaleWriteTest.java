package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.verbs.soft.fabric.FabricLink;

/**
 * A chunk re-posted on another path after its first path failed: packets of the first attempt
 * that are still in the network must not land after the application saw the MP completion. Path 1
 * delays every packet by 100 ms, longer than the requester waits (ack timeout about 17 ms, one
 * retry), so each chunk placed on it fails and is re-posted on path 0 while its packets are still
 * on their way to the responder. After each completion the test overwrites the target range and
 * checks that nothing lands on it afterwards. (Without the fence the repair's back-off, doubling
 * from 10 ms while the path keeps failing, soon outlasts the delay and the old packets land.)
 */
class StaleWriteTest {
    private static final int LEN = 256 * 1024;
    private static final long DELAY_NANOS = 100_000_000L;

    @Test
    void noWriteOfAnAbandonedAttemptLandsAfterTheCompletion() throws Exception {
        try (Fabric f = new Fabric("rate=1g", "rate=1g")) {
            var o = Fabric.options().ackTimeout(12).retryCount(1).chunkSize(64 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(12).retryCount(1)), LEN);
            p.write(LEN);
            FabricLink slow = f.links.get(1);
            slow.configure(slow.spec().withDelayNanos(DELAY_NANOS));
            ByteBuffer marker = ByteBuffer.allocateDirect(LEN);
            for (int round = 0; round < 8; round++) {
                p.fill(p.clientBuf, 0, LEN);
                p.client.postWrite(100 + round, p.clientMr, 0, LEN, p.serverMr.remote(), 0);
                MpCompletion c = Pair.await(p.client);
                assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
                // the application reuses the target range at once
                p.fill(marker, 0, LEN);
                p.serverBuf.put(0, marker, 0, LEN);
                Thread.sleep(2 * DELAY_NANOS / 1_000_000);
                int at = marker.mismatch(p.serverBuf.slice(0, LEN));
                assertEquals(-1, at, "round " + round + ": a write of an abandoned attempt landed at byte " + at
                        + " after the completion; " + ((MpConnection) p.client).describe());
            }
            assertTrue(p.client.pathStats().get(1).chunksFailed() > 0,
                    "chunks on the slow path failed and were re-posted: " + p.client.pathStats());
            String d = ((MpConnection) p.client).describe();
            assertTrue(d.contains("fenceWaits=") && !d.contains("fenceWaits=0]"), "completions were held: " + d);
        }
    }
}
