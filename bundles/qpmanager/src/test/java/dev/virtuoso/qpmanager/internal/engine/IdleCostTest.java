package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;

/**
 * The idle cost of open connections with the default settings (heartbeats on, unlike
 * {@code EngineGroupTest.quietConnectionsAreNotRun}): a quiet connection is run only when a peer's
 * PING wakes it, so its duty cycles grow with the heartbeats it receives, not with time. A polled
 * connection (a 1 ms timer, say) would run about 1000 cycles per second.
 */
class IdleCostTest {
    private static final int PAIRS = 8;

    @Test
    void quietConnectionsRunOnlyForTheirHeartbeats() throws Exception {
        EngineGroup engines = new EngineGroup(1);
        try (Fabric f = new Fabric(CoreSettings.DEFAULTS, engines, "rate=0", "rate=0")) {
            List<Pair> pairs = new ArrayList<>();
            try (MultipathListener l = f.connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Fabric.options().device("b").build())) {
                for (int i = 0; i < PAIRS; i++) {
                    MultipathConnection c = f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
                    MultipathConnection s = l.accept(30, TimeUnit.SECONDS);
                    assertTrue(s != null, "server side accepted connection " + i);
                    pairs.add(new Pair(new MultipathConnection[] {c, s}, 64 * 1024));
                }
            }
            for (Pair p : pairs) {
                p.write(64 * 1024); // every connection has moved data before it goes quiet
            }
            Thread.sleep(500); // the last completions and the connections' quiet countdown
            long heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(CoreSettings.DEFAULTS.heartbeatMillis());
            long before = engines.duties();
            long t0 = System.nanoTime();
            Thread.sleep(3 * CoreSettings.DEFAULTS.heartbeatMillis());
            long idle = engines.duties() - before;
            long elapsed = System.nanoTime() - t0;
            // each end receives at most one PING per heartbeat interval (plus one at either edge of the
            // window); a wake costs at most the quiet countdown plus the cycle that arms the CQ
            long wakesPerEnd = elapsed / heartbeatNanos + 2;
            long bound = 2L * PAIRS * wakesPerEnd * (EngineAgent.QUIET_AFTER_CYCLES + 2);
            System.out.printf("duty cycles of %d quiet connection ends with 1 s heartbeats over %d ms: %d (bound %d)%n",
                    2 * PAIRS, elapsed / 1_000_000, idle, bound);
            assertTrue(idle <= bound, "quiet ends ran " + idle + " duty cycles, more than their heartbeats explain ("
                    + bound + ")");
            for (Pair p : pairs) {
                assertEquals(ConnectionState.ESTABLISHED, p.client.state(), "heartbeats kept the connection alive");
            }
        } finally {
            assertTrue(engines.close(10_000));
        }
    }
}
