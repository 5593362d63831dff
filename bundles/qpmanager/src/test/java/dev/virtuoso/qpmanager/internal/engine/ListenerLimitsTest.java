package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.qpmanager.internal.bootstrap.PeerLimits;

/** The listener's bootstrap limits: per-source cap, first-frame deadline, bounded accept queue, binding. */
class ListenerLimitsTest {

    private static BootstrapLimits limits(int perSource, long deadlineMillis, int acceptQueue) {
        return new BootstrapLimits(64, 4, perSource, deadlineMillis, acceptQueue, 64, PeerLimits.DEFAULTS);
    }

    private static MultipathListener listen(Fabric f) throws VirtuosoException {
        return f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Fabric.options().device("b").build());
    }

    private static Socket idle(InetSocketAddress to) throws IOException {
        Socket s = new Socket();
        s.connect(to, 5000);
        s.setSoTimeout(3000);
        return s;
    }

    /** @return true if the listener closed the socket (EOF or reset) within the socket's timeout */
    private static boolean closedByListener(Socket s) throws IOException {
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static void await(LongSupplier counter, long value, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (counter.getAsLong() < value) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + ": " + counter.getAsLong() + " < " + value + " after 5 s");
            }
            Thread.sleep(10);
        }
    }

    @Test
    void oneSourceGetsNoMoreThanItsCapAndTheRestIsClosedAtOnce() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            f.connector.bootstrapLimits(limits(3, 10_000, 8));
            Listener l = (Listener) listen(f);
            List<Socket> kept = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                kept.add(idle(l.localAddress()));
            }
            List<Socket> excess = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                excess.add(idle(l.localAddress()));
            }
            for (Socket s : excess) {
                assertTrue(closedByListener(s), "a connection over the per-source cap is closed");
                s.close();
            }
            assertEquals(5, l.droppedPerSource());
            kept.get(0).setSoTimeout(300);
            assertTrue(!closedByListener(kept.get(0)), "connections within the cap stay open");
            for (Socket s : kept) {
                s.close();
            }
            await(l::failures, 3, "the idle connections' closes were seen");
            MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
            assertNotNull(l.accept(10, TimeUnit.SECONDS), "the source may connect again once its connections are gone");
            c.close();
            l.close();
        }
    }

    @Test
    void aConnectionWithoutAFirstFrameIsClosedAtTheDeadline() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            f.connector.bootstrapLimits(limits(8, 300, 8));
            Listener l = (Listener) listen(f);
            try (Socket s = idle(l.localAddress())) {
                long t0 = System.nanoTime();
                assertTrue(closedByListener(s), "closed");
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(3));
            }
            assertEquals(1, l.expired());
            l.close();
        }
    }

    @Test
    void theAcceptQueueIsBoundedAndAFullQueueIsRefusedByName() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            f.connector.bootstrapLimits(limits(8, 10_000, 1));
            MultipathListener l = listen(f);
            MultipathConnection first = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
            VirtuosoException full = assertThrows(VirtuosoException.class,
                    () -> f.connector.connect(l.localAddress(), Fabric.options().device("a").build()));
            assertTrue(full.getMessage().contains("accept queue full"), full.getMessage());
            MultipathConnection firstServer = l.accept(10, TimeUnit.SECONDS);
            assertNotNull(firstServer);
            MultipathConnection second = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
            assertNotNull(l.accept(10, TimeUnit.SECONDS), "a slot is free again once accept took a connection");
            first.close();
            second.close();
            l.close();
        }
    }

    @Test
    void theListenerBindsTheAddressItIsGiven() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            MultipathListener l = listen(f);
            assertEquals(InetAddress.getLoopbackAddress(), l.localAddress().getAddress());
            l.close();
        }
    }
}
