package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Two soft RNICs on the in-process fabric: host {@code a} with vNICs 10.0.1.1.. and host {@code b}
 * with 10.0.2.1.., path i being the link between 10.0.1.(i+1) and 10.0.2.(i+1), and one connector
 * serving both sides (device {@code a} connects, device {@code b} listens).
 */
final class Fabric implements AutoCloseable {
    final FabricNetwork network;
    final SoftVerbsProvider provider;
    final PolicyRegistry policies = new PolicyRegistry();
    final Connector connector;
    final List<FabricLink> links = new ArrayList<>();
    final List<InetAddress> aAddresses = new ArrayList<>();
    final List<InetAddress> bAddresses = new ArrayList<>();
    private MultipathListener listener;

    /** @param specs one link spec per path, in the fabric's text form */
    Fabric(String... specs) {
        this(CoreSettings.DEFAULTS, specs);
    }

    Fabric(CoreSettings settings, String... specs) {
        this(settings, true, null, false, specs);
    }

    /** A fabric whose connector's connections run on {@code engines} (owned by the caller). */
    Fabric(CoreSettings settings, EngineGroup engines, String... specs) {
        this(settings, true, engines, false, specs);
    }

    /** Soft RNICs configured without SRQs (they advertise {@code max_srq = 0}). */
    static Fabric withoutSrq(String... specs) {
        return new Fabric(CoreSettings.DEFAULTS, false, null, false, specs);
    }

    /**
     * @param softInvokeOnPoll whether the soft RNICs' duty cycles run on the threads polling their
     *     CQs ({@link SoftRnicConfig.Builder#invokeOnPoll})
     */
    static Fabric of(CoreSettings settings, EngineGroup engines, boolean softInvokeOnPoll, String... specs) {
        return new Fabric(settings, true, engines, softInvokeOnPoll, specs);
    }

    private Fabric(CoreSettings settings, boolean srq, EngineGroup engines, boolean softInvokeOnPoll,
            String... specs) {
        network = new FabricNetwork("test", 7);
        for (int i = 0; i < specs.length; i++) {
            aAddresses.add(ip("10.0.1." + (i + 1)));
            bAddresses.add(ip("10.0.2." + (i + 1)));
        }
        network.addHost("a", aAddresses.toArray(new InetAddress[0]));
        network.addHost("b", bAddresses.toArray(new InetAddress[0]));
        for (int i = 0; i < specs.length; i++) {
            links.add(network.link(aAddresses.get(i), bAddresses.get(i), LinkSpec.parse(specs[i])));
        }
        provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addresses(aAddresses).fabric(network, "a").sharedReceiveQueues(srq)
                        .invokeOnPoll(softInvokeOnPoll).build(),
                SoftRnicConfig.builder("b").addresses(bAddresses).fabric(network, "b").sharedReceiveQueues(srq)
                        .invokeOnPoll(softInvokeOnPoll).build());
        connector = engines == null
                ? new Connector(name -> name == null || "soft".equals(name) ? provider : null, new DecomposerComponent(),
                        new ReassemblerComponent(), policies, settings)
                : new Connector(name -> name == null || "soft".equals(name) ? provider : null, new DecomposerComponent(),
                        new ReassemblerComponent(), policies, settings, engines);
    }

    /** Waits (at most 10 s) until every path of {@code c} reports a probed capacity. */
    static List<PathStats> awaitProbed(MultipathConnection c) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<PathStats> s = c.pathStats();
        while (s.stream().anyMatch(p -> p.probedCapacity() <= 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            s = c.pathStats();
        }
        for (PathStats p : s) {
            assertTrue(p.probedCapacity() > 0, "path " + p.pathId() + " has a probed capacity: " + s);
        }
        return s;
    }

    static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Heartbeats out of the way (10 min, liveness 20 min): only a test's own traffic wakes a connection. */
    static final CoreSettings NO_HEARTBEAT = new CoreSettings("soft", 128, ConnectOptions.MAX_PATHS, 4, 600_000,
            1_200_000);

    static ConnectOptions.Builder options() {
        return ConnectOptions.builder().handshakeTimeout(java.time.Duration.ofSeconds(5));
    }

    /** Connects a (client) to b (server) with the given options on both sides. */
    MultipathConnection[] connect(ConnectOptions.Builder client, ConnectOptions.Builder server) throws Exception {
        listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                server.device("b").build());
        MultipathConnection c = connector.connect(listener.localAddress(), client.device("a").build());
        MultipathConnection s = listener.accept(10, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("server side did not accept");
        }
        return new MultipathConnection[] {c, s};
    }

    MultipathListener listener() {
        return listener;
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        connector.close();
        provider.close();
        network.close();
    }

    /**
     * Takes link {@code path} down once {@code sender} has bytes in flight on it: a cut after they
     * completed (a slow start of the test's thread) would test nothing.
     */
    void cutWhileCarrying(MultipathConnection sender, int path) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sender.pathStats().get(path).inFlightBytes() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(sender.pathStats().get(path).inFlightBytes() > 0, "path " + path + " carried nothing to cut");
        links.get(path).down();
    }
}
