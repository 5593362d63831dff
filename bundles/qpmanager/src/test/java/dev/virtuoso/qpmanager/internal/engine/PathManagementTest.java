package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;

/** Paths added to and removed from a live connection. */
class PathManagementTest {

    private static void awaitState(Pair p, int path, PathState s, boolean server) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<PathStats> st = (server ? p.server : p.client).pathStats();
            if (st.size() > path && st.get(path).state() == s) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("path " + path + " not " + s + ": " + (server ? p.server : p.client).pathStats());
    }

    @Test
    void addAndRemovePathsWhileTransferring() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0", "rate=0")) {
            var client = Fabric.options().localAddresses(f.aAddresses.get(0)).remoteAddresses(f.bAddresses.get(0))
                    .chunkSize(128 * 1024);
            Pair p = new Pair(f.connect(client, Fabric.options()), 8 << 20);
            assertEquals(1, p.write(4 << 20).paths());

            VirtuosoException notOurs = assertThrows(VirtuosoException.class,
                    () -> p.client.addPath(f.aAddresses.get(1), f.bAddresses.get(1)));
            assertEquals(VirtuosoException.Reason.NO_PATH, notOurs.reason(), "only the configured local addresses");

            f.network.link(f.aAddresses.get(0), f.bAddresses.get(1), dev.virtuoso.verbs.soft.fabric.LinkSpec.UNLIMITED);
            int added = p.server.addPath(f.bAddresses.get(1), f.aAddresses.get(0));
            assertEquals(1, added);
            awaitState(p, 1, PathState.UP, false);
            MpCompletion w = p.write(4 << 20);
            assertEquals(2, w.paths());
            p.read(4 << 20);
            p.sendAll(1000, 2 << 20);

            VirtuosoException refused = assertThrows(VirtuosoException.class,
                    () -> p.server.addPath(f.bAddresses.get(2), Fabric.ip("10.9.9.9")));
            assertTrue(refused.getMessage().contains("refused"), refused.getMessage());

            p.client.postWrite(50, p.clientMr, 0, 8 << 20, p.serverMr.remote(), 0);
            p.client.removePath(0);
            assertEquals(PathState.DOWN, p.client.pathStats().get(0).state());
            MpCompletion during = Pair.await(p.client);
            assertEquals(50, during.wrId());
            assertTrue(during.ok(), during.toString());
            awaitState(p, 0, PathState.DOWN, true);
            MpCompletion after = p.write(4 << 20);
            assertEquals(1, after.paths());

            VirtuosoException last = assertThrows(VirtuosoException.class, () -> p.client.removePath(1));
            assertTrue(last.getMessage().contains("last usable"), last.getMessage());
            assertThrows(IllegalArgumentException.class, () -> p.client.removePath(7));
            p.sendAll(10, 1 << 20);
        }
    }
}
