package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;

/** One limit on the paths of a connection, the same in the API, the settings, the handshake and the tables. */
class PathLimitTest {

    @Test
    void everyLayerUsesTheApisLimit() {
        assertEquals(ConnectOptions.MAX_PATHS, Protocol.MAX_PATHS);
        assertEquals(ConnectOptions.MAX_PATHS, CoreSettings.DEFAULTS.maxPaths());
        assertThrows(IllegalArgumentException.class,
                () -> new CoreSettings("soft", 128, ConnectOptions.MAX_PATHS + 1, 4, 1000, 10_000));
        List<InetAddress> many = new ArrayList<>();
        for (int i = 0; i <= ConnectOptions.MAX_PATHS; i++) {
            many.add(Fabric.ip("10.1.0." + (i + 1)));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectOptions.builder().localAddresses(many));
        assertTrue(e.getMessage().contains("at most " + ConnectOptions.MAX_PATHS + " paths"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConnectOptions.builder().remoteAddresses(many));
    }

    @Test
    void aDeviceWithMoreVnicsThanMaxPathsConnectsWithMaxPathsAndRefusesMore() throws Exception {
        CoreSettings two = new CoreSettings("soft", 128, 2, 4, 1000, 10_000);
        try (Fabric f = new Fabric(two, "rate=0", "rate=0", "rate=0")) {
            Pair p = new Pair(f.connect(Fabric.options().chunkSize(64 * 1024), Fabric.options()), 1 << 20);
            assertEquals(2, p.client.pathStats().size(), p.client.pathStats().toString());
            assertEquals(2, p.server.pathStats().size(), p.server.pathStats().toString());
            assertEquals(2, p.write(256 * 1024).paths());
            VirtuosoException full = assertThrows(VirtuosoException.class,
                    () -> p.client.addPath(f.aAddresses.get(2), f.bAddresses.get(2)));
            assertTrue(full.getMessage().contains("already has 2 paths"), full.getMessage());
        }
    }
}
