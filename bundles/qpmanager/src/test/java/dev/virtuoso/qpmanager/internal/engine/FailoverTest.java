package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.PathState;

/** Chunks of a failing path are re-posted on the others; with no path left, requests fail in time. */
class FailoverTest {

    @Test
    void linkDownDuringATransferDoesNotFailIt() throws Exception {
        try (Fabric f = new Fabric("rate=400m", "rate=400m", "rate=400m")) {
            var o = Fabric.options().ackTimeout(10).retryCount(3).chunkSize(256 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(10).retryCount(3)), 32 << 20);
            p.write(1 << 20);
            p.fill(p.clientBuf, 0, 32 << 20);
            p.client.postWrite(9, p.clientMr, 0, 32 << 20, p.serverMr.remote(), 0);
            f.cutWhileCarrying(p.client, 1);
            MpCompletion c = Pair.await(p.client);
            assertEquals(MpStatus.SUCCESS, c.status(), c.toString());
            Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, 32 << 20);
            assertTrue(p.client.pathStats().get(1).chunksFailed() > 0, "path 1 lost chunks: " + p.client.pathStats());
            p.sendAll(100, 3 << 20, 5);
            p.read(4 << 20);

            f.links.get(1).up();
            long deadline = System.nanoTime() + 20_000_000_000L;
            long before = p.client.pathStats().get(1).bytesCompleted();
            while (p.client.pathStats().get(1).bytesCompleted() == before && System.nanoTime() < deadline) {
                p.write(4 << 20);
            }
            assertEquals(PathState.UP, p.client.pathStats().get(1).state(), "path 1 failed back");
            assertTrue(p.client.pathStats().get(1).bytesCompleted() > before, "path 1 carries data again");
        }
    }

    @Test
    void noPathLeftFailsRequestsAfterTheFailoverTimeout() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0")) {
            var o = Fabric.options().ackTimeout(8).retryCount(2).failoverTimeout(Duration.ofMillis(300));
            Pair p = new Pair(f.connect(o, Fabric.options().ackTimeout(8).retryCount(2)), 4 << 20);
            p.write(1 << 20);
            f.links.get(0).down();
            f.links.get(1).down();
            long t0 = System.nanoTime();
            p.client.postWrite(5, p.clientMr, 0, 4 << 20, p.serverMr.remote(), 0);
            MpCompletion c = Pair.await(p.client);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(MpStatus.PATH_FAILURE, c.status(), c.toString());
            assertTrue(ms >= 300, "failed after " + ms + " ms");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (p.client.state() != ConnectionState.FAILED && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(ConnectionState.FAILED, p.client.state());
        }
    }
}
