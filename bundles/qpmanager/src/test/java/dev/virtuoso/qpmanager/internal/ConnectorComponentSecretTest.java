package dev.virtuoso.qpmanager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Authentication set through the connector's configuration ({@code secretFile}), as ConfigAdmin
 * sets it: every case of two connectors, each configured with or without a secret file.
 */
class ConnectorComponentSecretTest {
    @TempDir
    Path dir;
    private FabricNetwork network;
    private SoftVerbsProvider provider;
    private final List<ConnectorComponent> components = new ArrayList<>();

    @BeforeEach
    void fabric() throws Exception {
        network = new FabricNetwork("secret", 3);
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
        components.forEach(ConnectorComponent::deactivate);
        provider.close();
        network.close();
    }

    /** The configuration interface with its defaults, except {@code values}. */
    private static ConnectorComponent.Config config(Map<String, Object> values) {
        return (ConnectorComponent.Config) Proxy.newProxyInstance(ConnectorComponent.class.getClassLoader(),
                new Class<?>[] {ConnectorComponent.Config.class}, (proxy, m, args) -> {
                    if (values.containsKey(m.getName())) {
                        return values.get(m.getName());
                    }
                    if (m.getDefaultValue() != null) {
                        return m.getDefaultValue();
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    /** A connector component as DS would activate it, with {@code secretFile} set or empty. */
    private ConnectorComponent component(Path secretFile) throws Exception {
        ConnectorComponent c = new ConnectorComponent();
        set(c, "decomposer", new DecomposerComponent());
        set(c, "reassembler", new ReassemblerComponent());
        c.addProvider(provider, Map.of(VerbsProvider.PROVIDER_PROPERTY, "soft"));
        Map<String, Object> values = new HashMap<>();
        values.put("publishConnections", false);
        values.put("secretFile", secretFile == null ? "" : secretFile.toString());
        c.activate(config(values), null);
        components.add(c);
        return c;
    }

    private static void set(Object o, String field, Object value) throws Exception {
        Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(o, value);
    }

    private Path secret(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text + "\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return p;
    }

    private static ConnectOptions.Builder options(String device) {
        return ConnectOptions.builder().device(device).handshakeTimeout(Duration.ofSeconds(5));
    }

    /** Server with {@code serverSecret}, client with {@code clientSecret}: the client's outcome. */
    private VirtuosoException attempt(Path serverSecret, Path clientSecret) throws Exception {
        MultipathListener l = component(serverSecret).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                options("b").build());
        try {
            MultipathConnection c = component(clientSecret).connect(l.localAddress(), options("a").build());
            MultipathConnection s = l.accept(10, TimeUnit.SECONDS);
            assertNotNull(s, "the server accepted");
            c.close();
            s.close();
            return null;
        } catch (VirtuosoException e) {
            assertEquals(null, l.accept(0, TimeUnit.MILLISECONDS), "no connection came of a refused handshake");
            return e;
        } finally {
            l.close();
        }
    }

    @Test
    void sameSecretFileOnBothSidesConnects() throws Exception {
        Path s = secret("s", "correct horse battery staple");
        assertEquals(null, attempt(s, secret("same", "correct horse battery staple")));
    }

    @Test
    void noSecretOnEitherSideConnects() throws Exception {
        assertEquals(null, attempt(null, null));
    }

    @Test
    void wrongSecretIsRefused() throws Exception {
        VirtuosoException e = attempt(secret("s", "correct horse battery staple"), secret("w", "incorrect horse battery"));
        assertEquals(Reason.HANDSHAKE, e.reason());
        assertTrue(e.getMessage().contains("authentication"), e.getMessage());
    }

    @Test
    void serverWithASecretRefusesAClientWithout() throws Exception {
        VirtuosoException e = attempt(secret("s", "correct horse battery staple"), null);
        assertTrue(e.getMessage().contains("requires a shared secret"), e.getMessage());
    }

    @Test
    void clientWithASecretRefusesAServerWithout() throws Exception {
        VirtuosoException e = attempt(null, secret("c", "correct horse battery staple"));
        assertTrue(e.getMessage().contains("does not authenticate"), e.getMessage());
    }

    @Test
    void anUnreadableOrWorldReadableSecretFileFailsTheConfiguration() throws Exception {
        Path open = secret("open", "correct horse battery staple");
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> component(open));
        assertTrue(e.getMessage().contains("secretFile") && e.getMessage().contains("readable by group or others"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> component(dir.resolve("missing")));
    }
}
