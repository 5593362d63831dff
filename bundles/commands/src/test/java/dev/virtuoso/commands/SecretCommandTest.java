package dev.virtuoso.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Dictionary;
import java.util.Hashtable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/** {@code virtuoso:secret} writes the connector's {@code secretFile} and keeps its other properties. */
class SecretCommandTest {
    /** The one configuration a minimal ConfigurationAdmin holds. */
    private Dictionary<String, Object> stored;
    private String pid;

    private ConfigurationAdmin configAdmin() {
        Configuration c = (Configuration) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Configuration.class}, (p, m, args) -> switch (m.getName()) {
                    case "getProperties" -> stored;
                    case "update" -> {
                        @SuppressWarnings("unchecked")
                        Dictionary<String, Object> d = (Dictionary<String, Object>) args[0];
                        stored = d;
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        return (ConfigurationAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (p, m, args) -> {
                    if (m.getName().equals("getConfiguration")) {
                        pid = (String) args[0];
                        return c;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void setsShowsAndClearsTheConnectorsSecretFileKeepingItsOtherSettings(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("secret");
        Files.writeString(file, "0123456789abcdef-shell", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        ConfigurationAdmin ca = configAdmin();
        stored = new Hashtable<>();
        stored.put("maxPaths", 16);
        assertEquals("no bootstrap secret configured", SecretCommand.apply(ca, null, false));
        SecretCommand.apply(ca, file, false);
        assertEquals("dev.virtuoso.qpmanager", pid);
        assertEquals(file.toAbsolutePath().toString(), stored.get("secretFile"));
        assertEquals(16, stored.get("maxPaths"), "other settings are kept");
        assertEquals("bootstrap secret file: " + file.toAbsolutePath(), SecretCommand.apply(ca, null, false));
        SecretCommand.apply(ca, null, true);
        assertEquals("", stored.get("secretFile"));
        assertEquals("no bootstrap secret configured", SecretCommand.apply(ca, null, false));
    }

    @Test
    void anUnfitFileIsRefusedAndTheConfigurationLeftAlone(@TempDir Path dir) throws Exception {
        Path open = dir.resolve("open");
        Files.writeString(open, "0123456789abcdef-shell", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-rw-r--"));
        ConfigurationAdmin ca = configAdmin();
        stored = null;
        IOException e = assertThrows(IOException.class, () -> SecretCommand.apply(ca, open, false));
        assertTrue(e.getMessage().contains("readable by group or others"), e.getMessage());
        assertEquals(null, stored, "nothing written");
    }
}
