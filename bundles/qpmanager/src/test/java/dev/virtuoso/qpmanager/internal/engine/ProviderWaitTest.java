package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;

/**
 * listen and connect wait, bounded by {@code providerTimeout}, for the provider and device they
 * name, so that a caller who has just re-configured a provider needs no retry loop.
 */
class ProviderWaitTest {
    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** The connector's view of the bound providers, changed by the test like DS binds would. */
    private final AtomicReference<VerbsProvider> bound = new AtomicReference<>();

    private Connector connector(Fabric f) {
        return new Connector(n -> n == null || "soft".equals(n) ? bound.get() : null, new DecomposerComponent(),
                new ReassemblerComponent(), f.policies, CoreSettings.DEFAULTS);
    }

    @Test
    void listenAndConnectWaitForAProviderBoundWhileTheyWait() throws Exception {
        try (Fabric f = new Fabric("rate=0"); Connector connector = connector(f)) {
            FutureTask<MultipathListener> listening = inThread("listen-waiting", () -> connector.listen(ANY_LOOPBACK,
                    Fabric.options().provider("soft").device("b").providerTimeout(Duration.ofSeconds(30)).build()));
            Thread.sleep(200);
            assertFalse(listening.isDone(), "listen returned (or failed) before any provider was bound");

            bound.set(f.provider);
            connector.providerAdded();
            MultipathListener listener = listening.get(10, TimeUnit.SECONDS);
            MultipathConnection c = connector.connect(listener.localAddress(),
                    Fabric.options().provider("soft").device("a").build());
            MultipathConnection s = listener.accept(10, TimeUnit.SECONDS);
            assertNotNull(s, "accepted");
            assertEquals(ConnectionState.ESTABLISHED, c.state());
            c.close();
            listener.close();
        }
    }

    @Test
    void aProviderWithoutTheNamedDeviceIsWaitedForUntilItsSuccessorOffersIt() throws Exception {
        try (Fabric f = new Fabric("rate=0"); Connector connector = connector(f);
                SoftVerbsProvider before = new SoftVerbsProvider(
                        SoftRnicConfig.builder("a").addresses(f.aAddresses).fabric(f.network, "a").build())) {
            bound.set(before);
            FutureTask<MultipathListener> listening = inThread("listen-waiting", () -> connector.listen(ANY_LOOPBACK,
                    Fabric.options().provider("soft").device("b").providerTimeout(Duration.ofSeconds(30)).build()));
            Thread.sleep(200);
            assertFalse(listening.isDone(), "listen gave up while the provider had no device b");

            // the re-configured provider replaces the old one, as after a ConfigAdmin update
            bound.set(f.provider);
            connector.providerAdded();
            MultipathListener listener = listening.get(10, TimeUnit.SECONDS);
            MultipathConnection c = connector.connect(listener.localAddress(),
                    Fabric.options().provider("soft").device("a").build());
            assertNotNull(listener.accept(10, TimeUnit.SECONDS), "accepted");
            c.close();
            listener.close();
        }
    }

    @Test
    void aProviderThatNeverComesFailsAfterTheTimeoutNamingIt() throws Exception {
        try (Fabric f = new Fabric("rate=0"); Connector connector = connector(f)) {
            long start = System.nanoTime();
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> connector.connect(ANY_LOOPBACK,
                    Fabric.options().provider("disni").providerTimeout(Duration.ofMillis(300)).build()));
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
            assertTrue(e.getMessage().contains("disni") && e.getMessage().contains("waited 300 ms"), e.getMessage());
            assertTrue(waitedMillis >= 300, "gave up after " + waitedMillis + " ms, before the 300 ms bound");

            VirtuosoException now = assertThrows(VirtuosoException.class, () -> connector.listen(ANY_LOOPBACK,
                    Fabric.options().provider("soft").providerTimeout(Duration.ZERO).build()));
            assertEquals(Reason.PROVIDER_UNAVAILABLE, now.reason());
            assertFalse(now.getMessage().contains("waited"), "zero timeout does not wait: " + now.getMessage());
        }
    }

    @Test
    void closingTheConnectorEndsAWaitWithClosed() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            Connector connector = connector(f);
            FutureTask<MultipathListener> listening = inThread("listen-waiting", () -> connector.listen(ANY_LOOPBACK,
                    Fabric.options().provider("soft").providerTimeout(Duration.ofSeconds(60)).build()));
            Thread.sleep(100);
            connector.close();
            ExecutionException e = assertThrows(ExecutionException.class, () -> listening.get(10, TimeUnit.SECONDS));
            VirtuosoException cause = assertInstanceOf(VirtuosoException.class, e.getCause());
            assertEquals(Reason.CLOSED, cause.reason());
        }
    }

    @Test
    void theDefaultWaitIsFiveSeconds() {
        assertEquals(Duration.ofSeconds(5), Fabric.options().build().providerTimeout());
        assertThrows(IllegalArgumentException.class, () -> Fabric.options().providerTimeout(Duration.ofMillis(-1)));
    }

    private static <T> FutureTask<T> inThread(String name, java.util.concurrent.Callable<T> call) {
        FutureTask<T> task = new FutureTask<>(call);
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
        return task;
    }
}
