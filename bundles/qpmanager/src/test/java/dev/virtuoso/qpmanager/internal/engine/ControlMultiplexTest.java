package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;

/** Connections' control channels on the connector's fixed control I/O threads. */
class ControlMultiplexTest {

    private static Set<String> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .collect(Collectors.toSet());
    }

    /** @return the control I/O threads of the connector whose connection ids start with {@code prefix-} */
    private static Set<String> controlIoThreads(String prefix) {
        return liveThreads().stream().filter(n -> n.startsWith("virtuoso-ctrl-io") && n.endsWith("-" + prefix))
                .collect(Collectors.toSet());
    }

    private static String prefix(MultipathConnection c) {
        return c.id().substring(0, c.id().lastIndexOf('-'));
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + " within 10 s");
            }
            Thread.sleep(5);
        }
    }

    @Test
    void manyConnectionsMoveDataWithControlThreadsIndependentOfTheirNumber() throws Exception {
        Fabric f = new Fabric("rate=0", "rate=0");
        try {
            List<Pair> pairs = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                pairs.add(new Pair(f.connect(Fabric.options(), Fabric.options()), 256 << 10));
            }
            String prefix = prefix(pairs.get(0).client);
            assertEquals(f.connector.controlThreads(), controlIoThreads(prefix).size());
            Set<String> names = liveThreads();
            for (Pair p : pairs) {
                assertTrue(!names.contains("virtuoso-ctrl-" + p.client.id())
                        && !names.contains("virtuoso-ctrl-" + p.server.id()), "no control thread per connection");
            }
            // SENDs below and above the split threshold: reassembly notices go over the control channels
            for (Pair p : pairs) {
                p.sendAll(1000, 100_000);
            }
            f.connector.close();
            for (Pair p : pairs) {
                assertEquals(ConnectionState.CLOSED, p.client.state());
                assertEquals(ConnectionState.CLOSED, p.server.state());
            }
            assertEquals(Set.of(), controlIoThreads(prefix), "the connector stops its control I/O threads");
        } finally {
            f.close();
        }
    }

    @Test
    void closingTheConnectorDuringHandshakesLeavesNoThreadOrConnection() throws Exception {
        for (int round = 0; round < 3; round++) {
            Fabric f = new Fabric("rate=0", "rate=0");
            try {
                MultipathConnection[] first = f.connect(Fabric.options(), Fabric.options());
                String prefix = prefix(first[0]);
                MultipathListener l = f.listener();
                // a slow peer: half a header, then nothing
                Socket slow = new Socket();
                slow.connect(l.localAddress(), 5000);
                OutputStream o = slow.getOutputStream();
                o.write(new byte[] {0, 0, 0});
                o.flush();
                List<CompletableFuture<MultipathConnection>> attempts = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    attempts.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return f.connector.connect(l.localAddress(), Fabric.options().device("a").build());
                        } catch (Exception e) {
                            return null; // refused or cut by the close: either is fine
                        }
                    }));
                }
                Thread.sleep(round * 15L);
                long t0 = System.nanoTime();
                f.connector.close();
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15), "close is bounded");
                for (CompletableFuture<MultipathConnection> a : attempts) {
                    MultipathConnection c = a.get(20, TimeUnit.SECONDS);
                    if (c != null) {
                        await(() -> c.state() == ConnectionState.CLOSED || c.state() == ConnectionState.FAILED,
                                "a connection made during the close ends");
                    }
                }
                assertEquals(ConnectionState.CLOSED, first[0].state());
                await(() -> controlIoThreads(prefix).isEmpty(), "control I/O threads stop");
                await(() -> liveThreads().stream().noneMatch(n -> n.startsWith("virtuoso-listen-" + l.localAddress().getPort())),
                        "the listener thread stops");
                slow.close();
            } finally {
                f.close();
            }
        }
    }
}
