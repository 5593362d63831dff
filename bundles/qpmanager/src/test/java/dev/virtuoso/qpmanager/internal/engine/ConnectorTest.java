package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * {@link Connector}'s argument and option checks, its waits for a provider, its error paths and
 * its teardown: what fails is checked by reason and message, what succeeds by the connections and
 * observer calls it leaves.
 */
class ConnectorTest {
    private Fabric f;

    @BeforeEach
    void fabric() {
        f = new Fabric("rate=0");
    }

    @AfterEach
    void close() {
        f.close();
    }

    private static InetSocketAddress loopback() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    private Connector connector(AtomicReference<VerbsProvider> p, EngineGroup engines) {
        return new Connector(name -> name == null || "soft".equals(name) ? p.get() : null, new DecomposerComponent(),
                new ReassemblerComponent(), f.policies, CoreSettings.DEFAULTS, engines, 1);
    }

    @Test
    void aProviderThatIsNotBoundFailsAtOnceWithoutATimeoutAndNamesItself() {
        ConnectOptions o = Fabric.options().provider("nonesuch").providerTimeout(Duration.ZERO).build();
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> f.connector.connect(loopback(), o));
        assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
        assertEquals("no verbs provider named nonesuch", e.getMessage());
        VirtuosoException l = assertThrows(VirtuosoException.class, () -> f.connector.listen(loopback(), o));
        assertEquals("no verbs provider named nonesuch", l.getMessage());
    }

    @Test
    void withATimeoutTheFailureSaysHowLongItWaited() {
        ConnectOptions o = Fabric.options().providerTimeout(Duration.ofMillis(30)).device("zz").build();
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> f.connector.connect(loopback(), o));
        assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
        assertEquals("provider soft has no device zz (waited 30 ms)", e.getMessage());
    }

    @Test
    void theDefaultProviderOfTheSettingsIsUsedWhenTheOptionsNameNone() throws Exception {
        f.connector.settings(new CoreSettings("other", CoreSettings.DEFAULTS.sendQueueDepth(),
                CoreSettings.DEFAULTS.maxPaths(), CoreSettings.DEFAULTS.builtinChunksPerPath(),
                CoreSettings.DEFAULTS.heartbeatMillis(), CoreSettings.DEFAULTS.livenessMillis()));
        ConnectOptions o = Fabric.options().providerTimeout(Duration.ZERO).device("a").build();
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> f.connector.listen(loopback(), o));
        assertEquals("no verbs provider named other", e.getMessage());
        f.connector.settings(CoreSettings.DEFAULTS);
        MultipathListener l = f.connector.listen(loopback(), o);
        assertNotNull(l.localAddress());
        l.close();
    }

    @Test
    void aWaitForAProviderEndsWhenOneIsAdded() throws Exception {
        AtomicReference<VerbsProvider> p = new AtomicReference<>();
        EngineGroup engines = new EngineGroup(1);
        try (Connector c = connector(p, engines)) {
            ConnectOptions o = Fabric.options().providerTimeout(Duration.ofSeconds(30)).device("b").build();
            AtomicReference<Object> got = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    got.set(c.provider(o));
                } catch (VirtuosoException e) {
                    got.set(e);
                }
            });
            t.start();
            Thread.sleep(50);
            c.providerAdded(); // nothing new yet: the wait goes on
            Thread.sleep(20);
            p.set(f.provider);
            c.providerAdded();
            t.join(10_000);
            assertFalse(t.isAlive());
            assertSame(f.provider, got.get());
        }
        engines.close();
    }

    @Test
    void closingTheConnectorEndsAWaitForAProvider() throws Exception {
        AtomicReference<VerbsProvider> p = new AtomicReference<>();
        EngineGroup engines = new EngineGroup(1);
        Connector c = connector(p, engines);
        ConnectOptions o = Fabric.options().providerTimeout(Duration.ofSeconds(30)).build();
        AtomicReference<Object> got = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                got.set(c.provider(o));
            } catch (VirtuosoException e) {
                got.set(e);
            }
        });
        t.start();
        Thread.sleep(50);
        c.close();
        t.join(10_000);
        assertFalse(t.isAlive());
        VirtuosoException e = (VirtuosoException) got.get();
        assertEquals(Reason.CLOSED, e.reason());
        assertFalse(engines.isClosed(), "engines the caller owns stay");
        engines.close();
    }

    /**
     * The provider is unbound while a connect already holds it (here: before the connect, with the
     * lookup still returning it): the connection is closed once listed, not left running on it.
     * Bound again, its connections stay.
     */
    @Test
    void aConnectionSetUpWhileItsProviderIsUnboundIsClosed() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            f.connector.providerGone(f.provider);
            MultipathConnection[] c = f.connect(Fabric.options(), Fabric.options());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((c[0].state() == ConnectionState.ESTABLISHED || c[1].state() == ConnectionState.ESTABLISHED)
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(c[0].state() != ConnectionState.ESTABLISHED && c[1].state() != ConnectionState.ESTABLISHED,
                    "closed: " + c[0].state() + " / " + c[1].state());
            f.connector.providerAdded(f.provider);
            MultipathConnection[] again = f.connect(Fabric.options(), Fabric.options());
            new Pair(again, 1 << 16).write(1 << 16);
            assertEquals(ConnectionState.ESTABLISHED, again[0].state());
        }
    }

    @Test
    void anInterruptedWaitForAProviderFailsAndKeepsTheInterrupt() throws Exception {
        AtomicReference<VerbsProvider> p = new AtomicReference<>();
        EngineGroup engines = new EngineGroup(1);
        try (Connector c = connector(p, engines)) {
            ConnectOptions o = Fabric.options().providerTimeout(Duration.ofSeconds(30)).build();
            Thread.currentThread().interrupt();
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> c.provider(o));
            assertTrue(Thread.interrupted(), "the interrupt is kept");
            assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
            assertEquals("no verbs provider is bound (interrupted while waiting for it)", e.getMessage());
        }
        engines.close();
    }

    @Test
    void aClosedConnectorRefusesConnectAndListenAndClosesEnginesItOwns() throws Exception {
        Connector c = new Connector(name -> f.provider, new DecomposerComponent(), new ReassemblerComponent(),
                f.policies, CoreSettings.DEFAULTS);
        assertTrue(c.controlThreads() >= 1);
        EngineGroup engines = c.engines();
        c.close();
        assertTrue(engines.isClosed(), "its own engines are closed with it");
        ConnectOptions o = Fabric.options().device("b").build();
        assertEquals(Reason.CLOSED, assertThrows(VirtuosoException.class, () -> c.connect(loopback(), o)).reason());
        assertEquals(Reason.CLOSED, assertThrows(VirtuosoException.class, () -> c.listen(loopback(), o)).reason());
    }

    @Test
    void closedEnginesCloseTheConnectorForNewConnections() throws Exception {
        AtomicReference<VerbsProvider> p = new AtomicReference<>(f.provider);
        EngineGroup engines = new EngineGroup(1);
        try (Connector c = connector(p, engines)) {
            assertEquals(1, c.controlThreads());
            assertSame(engines, c.engines());
            engines.close();
            VirtuosoException e = assertThrows(VirtuosoException.class,
                    () -> c.listen(loopback(), Fabric.options().device("b").build()));
            assertEquals(Reason.CLOSED, e.reason());
        }
    }

    @Test
    void anUnknownPolicyIsRefusedBeforeAnythingIsOpened() {
        ConnectOptions o = Fabric.options().loadBalancer("nonesuch").fallbackLoadBalancer("neither").device("b").build();
        assertEquals(Reason.UNKNOWN_POLICY,
                assertThrows(VirtuosoException.class, () -> f.connector.listen(loopback(), o)).reason());
        assertEquals(Reason.UNKNOWN_POLICY,
                assertThrows(VirtuosoException.class, () -> f.connector.connect(loopback(), o)).reason());
    }

    @Test
    void aLocalAddressThatIsNoVnicOfTheDeviceIsRefused() {
        ConnectOptions o = Fabric.options().device("b").localAddresses(Fabric.ip("10.0.1.1")).build();
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> f.connector.listen(loopback(), o));
        assertEquals(Reason.NO_PATH, e.reason());
        assertTrue(e.getMessage().startsWith("/10.0.1.1 is not a vNIC of the device"), e.getMessage());
    }

    @Test
    void aBootstrapAddressInUseFailsAsIo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), taken.getLocalPort());
            VirtuosoException e = assertThrows(VirtuosoException.class,
                    () -> f.connector.listen(at, Fabric.options().device("b").build()));
            assertEquals(Reason.IO, e.reason());
            assertTrue(e.getMessage().startsWith("cannot listen on " + at), e.getMessage());
        }
    }

    @Test
    void connectingToNoListenerFailsAndLeavesNothingOpen() {
        InetSocketAddress nobody;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        assertThrows(VirtuosoException.class,
                () -> f.connector.connect(nobody, Fabric.options().device("a").build()));
        assertTrue(f.connector.connections().isEmpty());
        assertEquals(0, java.util.Arrays.stream(f.connector.engines().loads()).sum(),
                "the engine agent counted for the attempt is uncounted");
    }

    @Test
    void theObserverSeesConnectionsComeAndGoAndConnectionsListsThem() throws Exception {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        f.connector.observer(new Connector.Observer() {
            @Override
            public void established(MultipathConnection c) {
                seen.add("up " + c.id());
            }

            @Override
            public void closed(MultipathConnection c) {
                seen.add("down " + c.id());
            }
        });
        MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
        assertEquals(2, f.connector.connections().size());
        assertTrue(f.connector.connections().contains(cs[0]));
        assertTrue(f.connector.connections().contains(cs[1]));
        assertTrue(seen.contains("up " + cs[0].id()), seen.toString());
        assertTrue(seen.contains("up " + cs[1].id()), seen.toString());
        assertFalse(cs[0].id().equals(cs[1].id()), "each connection has its own id");
        cs[0].close();
        cs[1].close();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!f.connector.connections().isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertTrue(f.connector.connections().isEmpty());
        assertTrue(seen.contains("down " + cs[0].id()), seen.toString());
        assertTrue(seen.contains("down " + cs[1].id()), seen.toString());
    }

    @Test
    void aProviderGoingAwayDisconnectsOnlyItsConnections() throws Exception {
        MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
        f.connector.providerGone(new Fabric("rate=0").provider);
        assertEquals(ConnectionState.ESTABLISHED, cs[0].state(), "another provider's going away changes nothing");
        f.connector.providerGone(f.provider);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!f.connector.connections().isEmpty() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertTrue(f.connector.connections().isEmpty(), "both ends were closed");
        assertTrue(cs[0].state() == ConnectionState.CLOSED || cs[0].state() == ConnectionState.CLOSING);
    }

    @Test
    void aPathMonitorThatRefusesTheConnectionFailsItAndItsPeer() throws Exception {
        PathMonitorFactory refusing = (id, props, scratch) -> {
            throw new IllegalStateException("no room for " + id);
        };
        f.connector.pathMonitors(refusing);
        MultipathListener l = f.connector.listen(loopback(), Fabric.options().device("b").build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> f.connector.connect(l.localAddress(), Fabric.options().device("a").build()));
        assertTrue(e.getMessage().startsWith("the path monitor refused connection "), e.getMessage());
        assertTrue(e.getMessage().endsWith(": no room for " + e.getMessage().split(" ")[5].replace(":", "")),
                e.getMessage());
        assertTrue(f.connector.connections().isEmpty());
        assertEquals(0, f.connector.pathMonitorsGone(refusing, 1000), "no connection used it");
        MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
        assertNotNull(l.accept(10, TimeUnit.SECONDS), "without the factory connections are made again");
        c.close();
        l.close();
    }

    @Test
    void connectionsDetachFromAFactoryThatGoes() throws Exception {
        RecordingMonitors monitors = new RecordingMonitors();
        f.connector.pathMonitors(monitors);
        MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
        assertEquals(2, monitors.created.get());
        assertEquals(0, f.connector.pathMonitorsGone(new RecordingMonitors(), 1000), "another factory: no one waits");
        assertEquals(0, monitors.closed.get());
        assertEquals(0, f.connector.pathMonitorsGone(monitors, 10_000));
        assertEquals(2, monitors.closed.get(), "both connections' monitors were closed on detaching");
        MultipathConnection c = f.connector.connect(f.listener().localAddress(), Fabric.options().device("a").build());
        MultipathConnection s = f.listener().accept(10, TimeUnit.SECONDS);
        assertEquals(2, monitors.created.get(), "connections made after it went get no monitor");
        c.close();
        s.close();
        cs[0].close();
        cs[1].close();
    }

    /**
     * The factory is unbound while a connection being set up already took it (its first monitor is
     * being made): the unbind waits for that set-up, then for its connection to detach, so no
     * monitor of the factory runs after it returns.
     */
    @Test
    void aFactoryGoingDuringASetUpWaitsForThatConnection() throws Exception {
        RecordingMonitors recording = new RecordingMonitors();
        java.util.concurrent.CountDownLatch inSetUp = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
        PathMonitorFactory slow = (id, props, scratch) -> {
            if (made.getAndIncrement() == 0) {
                inSetUp.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return recording.newMonitor(id, props, scratch);
        };
        f.connector.pathMonitors(slow);
        MultipathListener l = f.connector.listen(loopback(), Fabric.options().device("b").build());
        AtomicReference<Object> client = new AtomicReference<>();
        Thread connecting = new Thread(() -> {
            try {
                client.set(f.connector.connect(l.localAddress(), Fabric.options().device("a").build()));
            } catch (Exception e) {
                client.set(e);
            }
        }, "test-connect");
        connecting.start();
        assertTrue(inSetUp.await(10, TimeUnit.SECONDS), "a set-up is making its monitor");
        AtomicReference<Integer> late = new AtomicReference<>();
        Thread unbinding = new Thread(() -> late.set(f.connector.pathMonitorsGone(slow, 10_000)), "test-unbind");
        unbinding.start();
        unbinding.join(300);
        assertTrue(unbinding.isAlive(), "the unbind waits for the set-up that took the factory");
        release.countDown();
        unbinding.join(15_000);
        assertFalse(unbinding.isAlive());
        assertEquals(0, late.get(), "every connection detached in time");
        connecting.join(15_000);
        MultipathConnection c = (MultipathConnection) client.get();
        MultipathConnection s = l.accept(10, TimeUnit.SECONDS);
        assertNotNull(s);
        assertEquals(recording.created.get(), recording.closed.get(), "every monitor made was closed on detaching");
        assertEquals(0, recording.callsAfterClose.get(), "no monitor was called after it was closed");
        c.close();
        s.close();
        l.close();
    }

    @Test
    void closeDisconnectsEveryConnectionAndListener() throws Exception {
        MultipathConnection[] cs = f.connect(Fabric.options(), Fabric.options());
        MultipathListener l = f.listener();
        f.connector.close();
        assertTrue(f.connector.connections().isEmpty());
        assertEquals(ConnectionState.CLOSED, cs[0].state());
        assertEquals(ConnectionState.CLOSED, cs[1].state());
        assertEquals(Reason.CLOSED, assertThrows(VirtuosoException.class, () -> l.accept(0, TimeUnit.SECONDS)).reason());
        assertTrue(f.connector.engines().isClosed());
    }

    /** A provider named {@code flaky} whose device list is {@code answers}, one answer a call (the last one repeats). */
    private static VerbsProvider flaky(Object... answers) {
        int[] calls = new int[1];
        return (VerbsProvider) java.lang.reflect.Proxy.newProxyInstance(VerbsProvider.class.getClassLoader(),
                new Class<?>[] {VerbsProvider.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "name":
                            return "flaky";
                        case "devices": {
                            Object a = answers[Math.min(calls[0]++, answers.length - 1)];
                            if (a instanceof VerbsException e) {
                                throw e;
                            }
                            return a;
                        }
                        case "hashCode":
                            return 7;
                        case "equals":
                            return proxy == args[0];
                        case "toString":
                            return "flaky";
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    private Connector flakyConnector(VerbsProvider p, EngineGroup engines) {
        return new Connector(name -> name == null || "flaky".equals(name) ? p : null, new DecomposerComponent(),
                new ReassemblerComponent(), f.policies, CoreSettings.DEFAULTS, engines, 1);
    }

    @Test
    void aProviderThatCannotListItsDevicesIsUnavailable() throws Exception {
        EngineGroup engines = new EngineGroup(1);
        try (Connector c = flakyConnector(flaky(new VerbsException(5, "gone")), engines)) {
            ConnectOptions o = Fabric.options().provider("flaky").providerTimeout(Duration.ZERO).build();
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> c.listen(loopback(), o));
            assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
            assertTrue(e.getMessage().startsWith("provider flaky cannot list its devices: "), e.getMessage());
            assertTrue(e.getMessage().contains("gone"), e.getMessage());
        }
        engines.close();
    }

    @Test
    void aProviderWithoutDevicesNamesTheDeviceAskedFor() throws Exception {
        EngineGroup engines = new EngineGroup(1);
        try (Connector c = flakyConnector(flaky(List.of()), engines)) {
            VirtuosoException any = assertThrows(VirtuosoException.class, () -> c.connect(loopback(),
                    Fabric.options().provider("flaky").providerTimeout(Duration.ZERO).build()));
            assertEquals("provider flaky has no device ", any.getMessage());
            VirtuosoException named = assertThrows(VirtuosoException.class, () -> c.connect(loopback(),
                    Fabric.options().provider("flaky").device("d").providerTimeout(Duration.ZERO).build()));
            assertEquals("provider flaky has no device d", named.getMessage());
        }
        engines.close();
    }

    @Test
    void devicesThatGoAfterTheProviderCheckFailTheListen() throws Exception {
        RdmaDevice d = new RdmaDevice("d", List.of(new Vnic(Fabric.ip("10.0.9.1"), 0, "eth9")));
        EngineGroup engines = new EngineGroup(1);
        ConnectOptions any = Fabric.options().provider("flaky").providerTimeout(Duration.ZERO).build();
        ConnectOptions named = Fabric.options().provider("flaky").device("d").providerTimeout(Duration.ZERO).build();
        try (Connector c = flakyConnector(flaky(List.of(d), new VerbsException(5, "gone")), engines)) {
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> c.listen(loopback(), any));
            assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
            assertTrue(e.getMessage().startsWith("cannot list devices: "), e.getMessage());
        }
        try (Connector c = flakyConnector(flaky(List.of(d), List.of()), engines)) {
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> c.listen(loopback(), any));
            assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
            assertEquals("provider flaky has no device ", e.getMessage());
        }
        try (Connector c = flakyConnector(flaky(List.of(d), List.of(new RdmaDevice("other", List.of()))), engines)) {
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> c.listen(loopback(), named));
            assertEquals("provider flaky has no device d", e.getMessage());
        }
        try (Connector c = flakyConnector(flaky(List.of(new RdmaDevice("other", List.of()), d)), engines)) {
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> c.listen(loopback(),
                    Fabric.options().provider("flaky").device("d").localAddresses(Fabric.ip("10.0.9.2"))
                            .providerTimeout(Duration.ZERO).build()));
            assertEquals(Reason.NO_PATH, e.reason());
            assertTrue(e.getMessage().contains("[/10.0.9.1]"), "the named device's vNICs: " + e.getMessage());
        }
        engines.close();
    }
}
