package dev.virtuoso.policy.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.pathmonitor.internal.PathMonitorService;
import dev.virtuoso.policy.cc.fixed.FixedChunkPolicy;
import dev.virtuoso.policy.lb.adaptive.AdaptivePolicy;
import dev.virtuoso.policy.lb.proportional.ProportionalPolicy;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Soft RNICs and a connector with the policies the binding ranks as the default (lb-proportional,
 * cc-fixed) and lb-adaptive registered under their names, on an engine group of the default size with the given
 * backoff window, run by its agents or by the polling threads. Soft RNICs yield for {@link #softYieldMicros}
 * when idle, and run on their CQs' pollers if {@link #softInvokeOnPoll}. In one process ({@link #LatencyRig(boolean, int, LatencyBench.Engine)}): devices a and b with
 * {@code paths} vNICs each, on the in-process fabric (unshaped links) or on the UDP wire over
 * loopback (a: 127.0.1.i, b: 127.0.2.i); {@link #connect} makes one multipath connection between
 * them. For one end of a two-process run ({@link #device}): one device on the UDP wire. {@link
 * #provider} also serves the raw-verbs baseline on the same soft RNIC.
 */
final class LatencyRig implements AutoCloseable {
    final SoftVerbsProvider provider;
    final List<InetAddress> a = new ArrayList<>();
    final List<InetAddress> b = new ArrayList<>();
    final EngineGroup engines;
    final Connector connector;
    private final FabricNetwork network;
    private final List<AutoCloseable> open = new ArrayList<>();

    LatencyRig(boolean fabric, int paths, LatencyBench.Engine engine) {
        this(fabric, paths, engine, LinkSpec.UNLIMITED);
    }

    /** @param link every fabric link's spec (rate, delay); ignored on the UDP wire */
    LatencyRig(boolean fabric, int paths, LatencyBench.Engine engine, LinkSpec link) {
        this(fabric, paths, engine, link, softInvokeOnPoll());
    }

    /** @param softInvoke whether the soft RNICs run on their CQs' pollers, whatever {@link #softInvokeOnPoll} says */
    LatencyRig(boolean fabric, int paths, LatencyBench.Engine engine, LinkSpec link, boolean softInvoke) {
        for (int i = 0; i < paths; i++) {
            a.add(BenchPair.ip(fabric ? "10.9." + (i + 1) + ".1" : "127.0.1." + (i + 1)));
            b.add(BenchPair.ip(fabric ? "10.9." + (i + 1) + ".2" : "127.0.2." + (i + 1)));
        }
        if (fabric) {
            network = new FabricNetwork("latency-bench", 1);
            network.addHost("a", a.toArray(new InetAddress[0]));
            network.addHost("b", b.toArray(new InetAddress[0]));
            for (int i = 0; i < paths; i++) {
                network.link(a.get(i), b.get(i), link);
            }
            provider = new SoftVerbsProvider(soft("a", softInvoke).addresses(a).fabric(network, "a").build(),
                    soft("b", softInvoke).addresses(b).fabric(network, "b").build());
        } else {
            network = null;
            // port 0: each device's UDP sockets take a free port (two devices on one host)
            provider = new SoftVerbsProvider(soft("a", softInvoke).addresses(a).udpPort(0).build(),
                    soft("b", softInvoke).addresses(b).udpPort(0).build());
        }
        engines = engines(engine);
        connector = connector(provider, engines);
    }

    private LatencyRig(SoftVerbsProvider provider, List<InetAddress> addresses, LatencyBench.Engine engine) {
        this.network = null;
        this.provider = provider;
        a.addAll(addresses);
        engines = engines(engine);
        connector = connector(provider, engines);
    }

    /** One end of a two-process run: device {@code name} on the UDP wire (port 4791) over {@code addresses}. */
    static LatencyRig device(String name, List<InetAddress> addresses, LatencyBench.Engine engine) {
        return new LatencyRig(new SoftVerbsProvider(soft(name, softInvokeOnPoll()).addresses(addresses).build()),
                addresses, engine);
    }

    /**
     * Microseconds an idle soft RNIC engine yields after its spin before it parks, in every latency
     * rig: {@code -Dlatency.softYieldMicros}, default 200. Request-response traffic on a machine with
     * fewer cores than busy threads otherwise pays a thread wake-up per packet, and whether it does
     * flips from row to row (see docs/latency.md); 0 is the soft RNIC's own default.
     */
    static long softYieldMicros() {
        long v = Long.getLong("latency.softYieldMicros", 200);
        if (v < 0) {
            throw new IllegalArgumentException("latency.softYieldMicros must be 0 or more: " + v);
        }
        return v;
    }

    /**
     * Whether every latency rig's soft RNICs run their duty cycles on the threads polling their CQs
     * ({@link SoftRnicConfig.Builder#invokeOnPoll}): {@code -Dlatency.softInvokeOnPoll=true}, default
     * false (the soft RNIC's default).
     */
    static boolean softInvokeOnPoll() {
        return Boolean.getBoolean("latency.softInvokeOnPoll");
    }

    /** @return the soft RNIC settings of the rigs, for a CSV's header line */
    static String softSettings() {
        return "soft RNIC idle yield " + softYieldMicros() + " us, soft RNIC run by CQ pollers "
                + (softInvokeOnPoll() ? "yes" : "no");
    }

    private static SoftRnicConfig.Builder soft(String name, boolean invokeOnPoll) {
        return SoftRnicConfig.builder(name).yieldNanos(TimeUnit.MICROSECONDS.toNanos(softYieldMicros()))
                .invokeOnPoll(invokeOnPoll);
    }

    private static EngineGroup engines(LatencyBench.Engine engine) {
        return new EngineGroup(EngineGroup.defaultSize(), TimeUnit.MICROSECONDS.toNanos(engine.spinMicros()),
                engine.invokeOnPoll());
    }

    private static Connector connector(SoftVerbsProvider provider, EngineGroup engines) {
        PolicyRegistry policies = new PolicyRegistry();
        policies.add(AdaptivePolicy.NAME, new AdaptivePolicy());
        policies.add(ProportionalPolicy.NAME, new ProportionalPolicy());
        policies.add(FixedChunkPolicy.NAME, new FixedChunkPolicy());
        Connector c = new Connector(n -> provider, new DecomposerComponent(), new ReassemblerComponent(), policies,
                CoreSettings.DEFAULTS, engines);
        c.pathMonitors(new PathMonitorService());
        return c;
    }

    /** @return {client, server} of a new connection over every vNIC */
    MultipathConnection[] connect(ConnectOptions options) throws Exception {
        MultipathListener listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                options.toBuilder().device("b").localAddresses(b).build());
        open.add(listener);
        MultipathConnection client = connector.connect(listener.localAddress(),
                options.toBuilder().device("a").localAddresses(a).build());
        MultipathConnection server = listener.accept(10, TimeUnit.SECONDS);
        if (server == null) {
            throw new IllegalStateException("server side did not accept within 10 s");
        }
        open.add(client);
        open.add(server);
        return new MultipathConnection[] {client, server};
    }

    /** Closes {@code c} with this rig (connections, listeners). */
    <T extends AutoCloseable> T closeLater(T c) {
        open.add(c);
        return c;
    }

    @Override
    public void close() {
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                // closing what is left
            }
        }
        connector.close();
        engines.close();
        provider.close();
        if (network != null) {
            network.close();
        }
    }
}
