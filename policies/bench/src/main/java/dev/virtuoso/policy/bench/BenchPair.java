package dev.virtuoso.policy.bench;

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
import dev.virtuoso.policy.cc.chunkprobe.ChunkProbePolicy;
import dev.virtuoso.policy.cc.fixed.FixedChunkPolicy;
import dev.virtuoso.pathmonitor.internal.PathMonitorService;
import dev.virtuoso.policy.lb.adaptive.AdaptivePolicy;
import dev.virtuoso.policy.lb.proportional.ProportionalPolicy;
import dev.virtuoso.policy.lb.roundrobin.RoundRobinPolicy;
import dev.virtuoso.policy.lb.single.SinglePathPolicy;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Two soft RNICs on the in-process fabric, path i over its own link (10.7.i.1 - 10.7.i.2), one
 * connector with every policy of the project registered, and one connection: client (host a)
 * writes to server (host b). Built with plain constructors, as the core's own tests do.
 */
final class BenchPair implements AutoCloseable {
    final FabricNetwork network;
    final List<FabricLink> links = new ArrayList<>();
    final ChunkProbePolicy chunkProbe = new ChunkProbePolicy();
    final MultipathConnection client;
    final MultipathConnection server;
    private final SoftVerbsProvider provider;
    /** The client device, opened only to read its counters (retransmissions, timeouts, NAKs). */
    private final dev.virtuoso.spi.verbs.IbvContext clientDevice;
    private final Connector connector;
    private final MultipathListener listener;

    /**
     * @param linkSpecs one fabric link spec per path
     * @param options connection options of both sides (policies, chunk size); device set here
     * @param seed the fabric's random seed (loss)
     */
    BenchPair(List<String> linkSpecs, ConnectOptions options, long seed) throws Exception {
        network = new FabricNetwork("policy-bench", seed);
        List<InetAddress> a = new ArrayList<>();
        List<InetAddress> b = new ArrayList<>();
        for (int i = 0; i < linkSpecs.size(); i++) {
            a.add(ip("10.7." + (i + 1) + ".1"));
            b.add(ip("10.7." + (i + 1) + ".2"));
        }
        network.addHost("a", a.toArray(new InetAddress[0]));
        network.addHost("b", b.toArray(new InetAddress[0]));
        for (int i = 0; i < linkSpecs.size(); i++) {
            links.add(network.link(a.get(i), b.get(i), LinkSpec.parse(linkSpecs.get(i))));
        }
        provider = new SoftVerbsProvider(SoftRnicConfig.builder("a").addresses(a).fabric(network, "a").build(),
                SoftRnicConfig.builder("b").addresses(b).fabric(network, "b").build());
        clientDevice = provider.openDevice("a");
        PolicyRegistry policies = new PolicyRegistry();
        policies.add(AdaptivePolicy.NAME, new AdaptivePolicy());
        policies.add(ProportionalPolicy.NAME, new ProportionalPolicy());
        policies.add(RoundRobinPolicy.NAME, new RoundRobinPolicy());
        policies.add(SinglePathPolicy.NAME, new SinglePathPolicy());
        policies.add(FixedChunkPolicy.NAME, new FixedChunkPolicy());
        policies.add(ChunkProbePolicy.NAME, chunkProbe);
        connector = new Connector(n -> provider, new DecomposerComponent(), new ReassemblerComponent(), policies,
                CoreSettings.DEFAULTS);
        // the real path monitor (built-in defaults): probes every path at connect, so lb-proportional
        // splits by probed capacity
        connector.pathMonitors(new PathMonitorService());
        listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                options.toBuilder().device("b").build());
        client = connector.connect(listener.localAddress(), options.toBuilder().device("a").build());
        server = listener.accept(10, TimeUnit.SECONDS);
        if (server == null) {
            throw new IllegalStateException("server side did not accept within 10 s");
        }
        awaitProbes();
    }

    /**
     * Waits (at most 10 s) until the path monitor has probed every path, so that the first
     * requests are already split by probed capacity; the stream would start anyway after that.
     */
    private void awaitProbes() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<PathStats> s = client.pathStats();
        while (s.stream().anyMatch(p -> p.probedCapacity() <= 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            s = client.pathStats();
        }
        StringBuilder line = new StringBuilder("  probed at connect (Mbit/s):");
        for (PathStats p : s) {
            line.append(String.format(java.util.Locale.ROOT, " %.1f", p.probedCapacity() * 8 / 1e6));
        }
        System.out.println(line);
    }

    /** @param path path slot @param spec new link spec text (rate change) */
    void reconfigure(int path, String spec) {
        links.get(path).configure(LinkSpec.parse(spec));
    }

    /** @param s a literal address @return it, parsed */
    static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** @return the client device's counters, non-zero ones only */
    String clientCounters() {
        return clientDevice.counters().toString();
    }

    @Override
    public void close() {
        client.close();
        server.close();
        listener.close();
        connector.close();
        clientDevice.close();
        provider.close();
        network.close();
    }
}
