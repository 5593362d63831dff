package dev.virtuoso.qpmanager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/** The component owns its engine group: sized by {@code engineAgents}, stopped on deactivation. */
class ConnectorComponentEnginesTest {
    private FabricNetwork network;
    private SoftVerbsProvider provider;

    @BeforeEach
    void fabric() throws Exception {
        network = new FabricNetwork("engines", 3);
        InetAddress a = InetAddress.getByName("10.0.1.1");
        InetAddress b = InetAddress.getByName("10.0.2.1");
        network.addHost("a", a);
        network.addHost("b", b);
        network.link(a, b, LinkSpec.parse("rate=0"));
        provider = new SoftVerbsProvider(SoftRnicConfig.builder("a").addresses(List.of(a)).fabric(network, "a").build(),
                SoftRnicConfig.builder("b").addresses(List.of(b)).fabric(network, "b").build());
    }

    @AfterEach
    void close() {
        provider.close();
        network.close();
    }

    private static ConnectorComponent.Config config(Map<String, Object> values) {
        return (ConnectorComponent.Config) Proxy.newProxyInstance(ConnectorComponent.class.getClassLoader(),
                new Class<?>[] {ConnectorComponent.Config.class}, (proxy, m, args) -> values.containsKey(m.getName())
                        ? values.get(m.getName()) : m.getDefaultValue());
    }

    private ConnectorComponent component(int engineAgents) throws Exception {
        return component(Map.of("publishConnections", false, "engineAgents", engineAgents));
    }

    private ConnectorComponent component(Map<String, Object> config) throws Exception {
        ConnectorComponent c = new ConnectorComponent();
        set(c, "decomposer", new DecomposerComponent());
        set(c, "reassembler", new ReassemblerComponent());
        c.addProvider(provider, Map.of(VerbsProvider.PROVIDER_PROPERTY, "soft"));
        c.activate(config(config), null);
        return c;
    }

    private static void set(Object o, String field, Object value) throws Exception {
        Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(o, value);
    }

    private static Set<Thread> engineThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("virtuoso-engine-")) {
                out.add(t);
            }
        }
        return out;
    }

    @Test
    void engineAgentsSizesTheGroupAndDeactivationStopsItAfterTheConnections() throws Exception {
        ConnectorComponent c = component(3);
        List<Thread> threads = c.engines().threads();
        assertEquals(3, threads.size());
        for (Thread t : threads) {
            assertTrue(t.getName().matches("virtuoso-engine-[0-2]"), t.getName());
        }
        ConnectOptions.Builder o = ConnectOptions.builder().handshakeTimeout(Duration.ofSeconds(5));
        MultipathListener l = c.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                o.device("b").build());
        MultipathConnection client = c.connect(l.localAddress(), o.device("a").build());
        MultipathConnection server = l.accept(10, TimeUnit.SECONDS);
        assertEquals(ConnectionState.ESTABLISHED, server.state());
        c.deactivate();
        assertEquals(ConnectionState.CLOSED, client.state(), "disconnected before the agents stopped");
        assertEquals(List.of(), c.engines().threads());
        for (Thread t : threads) {
            assertTrue(!t.isAlive(), t.getName() + " stopped");
        }
        assertEquals(0, c.engines().openDevices());
    }

    @Test
    void zeroMeansTheMachinesDefault() throws Exception {
        ConnectorComponent c = component(0);
        try {
            assertEquals(EngineGroup.defaultSize(), c.engines().size());
            assertTrue(EngineGroup.defaultSize() >= 1 && EngineGroup.defaultSize() <= 4);
        } finally {
            c.deactivate();
        }
    }

    @Test
    void aNegativeCountIsRefusedBeforeAnyThreadStarts() throws Exception {
        Set<Thread> before = engineThreads();
        assertThrows(IllegalArgumentException.class, () -> component(-1));
        Set<Thread> after = engineThreads();
        after.removeAll(before);
        assertEquals(Set.of(), after, "no engine thread started");
    }

    @Test
    void engineSpinMicrosSetsTheBackoffWindow() throws Exception {
        ConnectorComponent c = component(Map.of("publishConnections", false, "engineSpinMicros", 0L));
        try {
            assertEquals(0, c.engines().activeSpinNanos());
        } finally {
            c.deactivate();
        }
        c = component(Map.of("publishConnections", false, "engineSpinMicros", 1500L));
        try {
            assertEquals(1_500_000, c.engines().activeSpinNanos());
        } finally {
            c.deactivate();
        }
        c = component(Map.of("publishConnections", false));
        try {
            assertEquals(EngineGroup.DEFAULT_ACTIVE_SPIN_NANOS, c.engines().activeSpinNanos());
        } finally {
            c.deactivate();
        }
    }

    @Test
    void engineSettingsChangedWhileActiveAreReportedAsAwaitingActivationNotSilentlyIgnored() throws Exception {
        ConnectorComponent c = component(Map.of("publishConnections", false));
        try {
            EngineGroup before = c.engines();
            c.modified(config(Map.of("publishConnections", false, "heartbeatMillis", 500L)));
            assertEquals(null, c.awaitingActivation(), "a setting the component applies at once");
            c.modified(config(Map.of("publishConnections", false, "engineInvokeOnPoll", true, "engineSpinMicros", 10L)));
            assertSame(before, c.engines(), "the open connections keep their engine");
            assertFalse(c.engines().invokeOnPoll());
            String pending = c.awaitingActivation();
            assertTrue(pending != null && pending.contains("engineInvokeOnPoll=true")
                    && pending.contains("engineSpinMicros=10"), String.valueOf(pending));
            c.modified(config(Map.of("publishConnections", false)));
            assertEquals(null, c.awaitingActivation(), "back to what is running");
        } finally {
            c.deactivate();
        }
        ConnectorComponent again = component(Map.of("publishConnections", false, "engineInvokeOnPoll", true));
        try {
            assertTrue(again.engines().invokeOnPoll(), "read at activation");
            assertEquals(null, again.awaitingActivation());
        } finally {
            again.deactivate();
        }
    }

    @Test
    void aNegativeBackoffWindowIsRefusedBeforeAnyThreadStarts() throws Exception {
        Set<Thread> before = engineThreads();
        assertThrows(IllegalArgumentException.class,
                () -> component(Map.of("publishConnections", false, "engineSpinMicros", -1L)));
        Set<Thread> after = engineThreads();
        after.removeAll(before);
        assertEquals(Set.of(), after, "no engine thread started");
    }
}
