package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;

/** Closing a listener leaves the connections it already handed on alone, and ends waiting accepts. */
class ListenerCloseTest {

    /**
     * The race CI met once: the listener thread hands a connection to a handshake thread and, before
     * its next select, the connection is established, accepted and the listener closed. The
     * connection's cancelled key is still in the selector then, and must not be dropped with the
     * connections still waiting for their first frame.
     */
    @Test
    void aConnectionHandedOnBeforeTheListenerClosedStaysOpen() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            Listener l = (Listener) f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Fabric.options().device("b").build());
            CountDownLatch stalled = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            l.afterHandOff = () -> {
                stalled.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
            MultipathConnection s = l.accept(30, TimeUnit.SECONDS);
            assertNotNull(s, "accepted");
            assertTrue(stalled.await(10, TimeUnit.SECONDS), "the listener thread handed the connection on");

            Thread closer = new Thread(l::close, "test-listener-close");
            closer.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (closer.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < until) {
                Thread.sleep(1); // close() marked the listener closed and waits for its thread
            }
            release.countDown();
            closer.join(10_000);
            assertTrue(!closer.isAlive(), "the listener closed");

            Pair p = new Pair(new MultipathConnection[] {c, s}, 4096);
            p.write(4096); // every byte checked
            long quiet = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (c.state() == ConnectionState.ESTABLISHED && s.state() == ConnectionState.ESTABLISHED
                    && System.nanoTime() < quiet) {
                Thread.sleep(10); // a dropped control socket shows as FAILED on both ends within milliseconds
            }
            assertEquals(ConnectionState.ESTABLISHED, c.state(), "client end");
            assertEquals(ConnectionState.ESTABLISHED, s.state(), "server end");
        }
    }

    /** An accept waiting when the listener closes ends at once with CLOSED, not at its timeout. */
    @Test
    void closeWakesAWaitingAcceptWithClosed() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            MultipathListener l = f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Fabric.options().device("b").build());
            AtomicReference<Object> outcome = new AtomicReference<>();
            CountDownLatch ended = new CountDownLatch(1);
            Thread acceptor = new Thread(() -> {
                try {
                    outcome.set(l.accept(60, TimeUnit.SECONDS));
                } catch (Exception e) {
                    outcome.set(e);
                }
                ended.countDown();
            }, "test-accept");
            acceptor.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (acceptor.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < until) {
                Thread.sleep(1); // the accept is waiting
            }
            assertEquals(Thread.State.TIMED_WAITING, acceptor.getState(), "accept waits");
            l.close();
            assertTrue(ended.await(5, TimeUnit.SECONDS), "the waiting accept ended with the close, not after 60 s");
            VirtuosoException e = assertInstanceOf(VirtuosoException.class, outcome.get());
            assertEquals(VirtuosoException.Reason.CLOSED, e.reason());
            VirtuosoException again = assertThrows(VirtuosoException.class, () -> l.accept(1, TimeUnit.SECONDS));
            assertEquals(VirtuosoException.Reason.CLOSED, again.reason(), "and so does every later accept");
        }
    }
}
