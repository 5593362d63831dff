package dev.virtuoso.qpmanager.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.qpmanager.internal.bootstrap.PeerLimits;
import dev.virtuoso.qpmanager.internal.engine.BootstrapLimits;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * {@link ConnectorComponent}'s configuration: every attribute reaches the settings and limits it
 * belongs to, unfit values refuse the activation before anything starts, a modification with an
 * unfit secret file changes nothing. No connection is made.
 */
class ConnectorComponentConfigTest {
    @TempDir
    Path dir;

    private static ConnectorComponent.Config config(Map<String, Object> values) {
        return (ConnectorComponent.Config) Proxy.newProxyInstance(ConnectorComponent.class.getClassLoader(),
                new Class<?>[] {ConnectorComponent.Config.class}, (proxy, m, args) -> values.containsKey(m.getName())
                        ? values.get(m.getName()) : m.getDefaultValue());
    }

    private static ConnectorComponent component() throws Exception {
        ConnectorComponent c = new ConnectorComponent();
        set(c, "decomposer", new DecomposerComponent());
        set(c, "reassembler", new ReassemblerComponent());
        return c;
    }

    private static void set(Object o, String field, Object value) throws Exception {
        Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(o, value);
    }

    private static Object get(Object o, String field) throws Exception {
        Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        return f.get(o);
    }

    private Path secret(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return p;
    }

    @Test
    void theDefaultsAreTheCoresDefaults() {
        ConnectorComponent.Config c = config(Map.of());
        assertEquals(CoreSettings.DEFAULTS, ConnectorComponent.settings(c));
        assertEquals(BootstrapLimits.DEFAULTS, ConnectorComponent.bootstrapLimits(c));
        assertNull(ConnectorComponent.secret(c));
        assertEquals(EngineGroup.defaultSize(), ConnectorComponent.engineAgents(c));
    }

    @Test
    void everyAttributeReachesItsSetting() {
        Map<String, Object> v = new HashMap<>();
        v.put("defaultProvider", "other");
        v.put("sendQueueDepth", 7);
        v.put("maxPaths", 5);
        v.put("builtinChunksPerPath", 3);
        v.put("heartbeatMillis", 11L);
        v.put("livenessMillis", 99L);
        v.put("maxPendingConnections", 21);
        v.put("maxHandshakes", 22);
        v.put("maxHandshakesPerSource", 23);
        v.put("handshakeDeadlineMillis", 24L);
        v.put("acceptQueue", 25);
        v.put("listenBacklog", 26);
        v.put("peerMaxReceives", 27);
        v.put("peerMaxSlots", 28);
        v.put("peerMaxSlotBytes", 290);
        v.put("peerMaxScratchBytes", 30);
        v.put("engineAgents", 2);
        ConnectorComponent.Config c = config(v);
        assertEquals(new CoreSettings("other", 7, 5, 3, 11, 99), ConnectorComponent.settings(c));
        assertEquals(new BootstrapLimits(21, 22, 23, 24, 25, 26, new PeerLimits(27, 28, 290, 30)),
                ConnectorComponent.bootstrapLimits(c));
        assertEquals(2, ConnectorComponent.engineAgents(c));
    }

    @Test
    void aSecretFileIsReadWithItsNameTrimmed() throws Exception {
        Path p = secret("s", "correct horse battery staple");
        assertArrayEquals(Files.readAllBytes(p), ConnectorComponent.secret(config(Map.of("secretFile", "  " + p + " "))));
        assertNull(ConnectorComponent.secret(config(Map.of("secretFile", "   "))), "blank: no secret");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectorComponent.secret(config(Map.of("secretFile", dir.resolve("missing").toString()))));
        assertTrue(e.getMessage().startsWith("secretFile of " + ConnectorComponent.PID), e.getMessage());
    }

    @Test
    void aNegativeNumberOfAgentsIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectorComponent.engineAgents(config(Map.of("engineAgents", -1))));
        assertTrue(e.getMessage().contains("engineAgents") && e.getMessage().contains("-1"), e.getMessage());
    }

    @Test
    void unfitValuesRefuseTheActivationBeforeAnyAgentStarts() throws Exception {
        for (Map<String, Object> bad : List.<Map<String, Object>>of(Map.of("engineAgents", -1),
                Map.of("engineSpinMicros", -1L), Map.of("sendQueueDepth", 0), Map.of("acceptQueue", 0),
                Map.of("secretFile", dir.resolve("missing").toString()))) {
            ConnectorComponent c = component();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> c.activate(config(bad), null), bad.toString());
            assertNull(c.engines(), bad + ": no engine group was started");
            if (bad.containsKey("engineSpinMicros")) {
                assertTrue(e.getMessage().contains("engineSpinMicros"), e.getMessage());
            }
        }
    }

    @Test
    void activationSizesTheGroupAndItsBackoffWindowAndModifiedUpdatesTheSettings() throws Exception {
        ConnectorComponent c = component();
        Path s = secret("s", "correct horse battery staple");
        c.activate(config(Map.of("engineAgents", 1, "engineSpinMicros", 7L, "publishConnections", false,
                "secretFile", s.toString())), null);
        try {
            assertEquals(1, c.engines().size());
            assertEquals(7_000, c.engines().activeSpinNanos());
            assertFalse(c.engines().invokeOnPoll(), "agents run the engine unless configured otherwise");
            assertArrayEquals(Files.readAllBytes(s), (byte[]) get(c, "secret"));
            assertNull(get(c, "publisher"), "not publishing");
            Object connector = get(c, "connector");
            c.modified(config(Map.of("sendQueueDepth", 9, "secretFile", "")));
            assertEquals(9, ((CoreSettings) get(connector, "settings")).sendQueueDepth());
            assertNull(get(c, "secret"), "secret file removed");
            CoreSettings before = (CoreSettings) get(connector, "settings");
            assertThrows(IllegalArgumentException.class, () -> c.modified(config(Map.of("sendQueueDepth", 10,
                    "secretFile", dir.resolve("missing").toString()))));
            assertSame(before, get(connector, "settings"), "an unfit file changes nothing");
            assertNull(get(c, "secret"));
        } finally {
            c.deactivate();
        }
        assertEquals(List.of(), c.engines().threads(), "deactivation stopped the agents");
    }

    @Test
    void engineInvokeOnPollMakesTheGroupRunOnPolls() throws Exception {
        ConnectorComponent c = component();
        c.activate(config(Map.of("engineAgents", 1, "engineInvokeOnPoll", true, "publishConnections", false)), null);
        try {
            assertTrue(c.engines().invokeOnPoll());
        } finally {
            c.deactivate();
        }
    }

    @Test
    void publishingConnectionsMakesAPublisherThatDeactivationCloses() throws Exception {
        ConnectorComponent c = component();
        c.activate(config(Map.of("engineAgents", 1)), null);
        try {
            assertTrue(get(c, "publisher") instanceof ConnectionPublisher);
        } finally {
            c.deactivate();
        }
        assertEquals(List.of(), c.engines().threads());
    }

    @Test
    void theConnectorGetsTheLimitsTheObserverAndTheMonitorFactory() throws Exception {
        ConnectorComponent c = component();
        PathMonitorFactory early = (id, props, bytes) -> null;
        c.addPathMonitors(early);
        c.activate(config(Map.of("engineAgents", 1, "acceptQueue", 5)), null);
        try {
            Object connector = get(c, "connector");
            assertEquals(5, ((BootstrapLimits) get(connector, "bootstrap")).acceptQueue());
            assertSame(get(c, "publisher"), get(connector, "observer"));
            assertSame(early, get(connector, "monitors"), "a factory bound before activation");
            c.modified(config(Map.of("acceptQueue", 6)));
            assertEquals(6, ((BootstrapLimits) get(connector, "bootstrap")).acceptQueue());
            PathMonitorFactory later = (id, props, bytes) -> null;
            c.addPathMonitors(later);
            assertSame(later, get(c, "monitors"));
            assertSame(later, get(connector, "monitors"));
            c.removePathMonitors(early);
            assertSame(later, get(c, "monitors"), "another factory's unbind keeps this one");
            c.removePathMonitors(later);
            assertNull(get(c, "monitors"));
            assertNull(get(connector, "monitors"));
        } finally {
            c.deactivate();
        }
    }

    @Test
    void providersAndPoliciesAreKeptByTheirServiceNames() throws Exception {
        ConnectorComponent c = component();
        BoundProviders providers = (BoundProviders) get(c, "providers");
        PolicyRegistry registry = (PolicyRegistry) get(c, "registry");
        VerbsProvider p = (VerbsProvider) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {VerbsProvider.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "name" -> "own-name";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        c.addProvider(p, Map.of(VerbsProvider.PROVIDER_PROPERTY, "configured"));
        c.addProvider(p, Map.of());
        assertSame(p, providers.get("configured"));
        assertSame(p, providers.get("own-name"));
        c.removeProvider(p, Map.of(VerbsProvider.PROVIDER_PROPERTY, "configured"));
        assertNull(providers.get("configured"));
        assertSame(p, providers.get("own-name"), "the other registration stays");
        assertSame(p, providers.get(null), "and is the one a connection naming none gets");
        LoadBalancerPolicy lb = (LoadBalancerPolicy) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {LoadBalancerPolicy.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "name" -> "lb-own";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        CongestionAvoidancePolicy cc = (CongestionAvoidancePolicy) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {CongestionAvoidancePolicy.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "name" -> "cc-own";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        c.addLoadBalancer(lb, Map.of(LoadBalancerPolicy.NAME_PROPERTY, "lb-configured"));
        c.addLoadBalancer(lb, Map.of());
        c.addCongestionAvoidance(cc, Map.of(LoadBalancerPolicy.NAME_PROPERTY, "cc-configured"));
        assertSame(lb, registry.loadBalancer("lb-configured"));
        assertSame(lb, registry.loadBalancer("lb-own"));
        assertSame(cc, registry.congestionAvoidance("cc-configured"));
        c.removeLoadBalancer(lb, Map.of(LoadBalancerPolicy.NAME_PROPERTY, "lb-configured"));
        c.removeCongestionAvoidance(cc, Map.of(LoadBalancerPolicy.NAME_PROPERTY, "cc-configured"));
        assertNull(registry.loadBalancer("lb-configured"));
        assertSame(lb, registry.loadBalancer("lb-own"));
        assertNull(registry.congestionAvoidance("cc-configured"));
    }
}
