package dev.virtuoso.qpmanager.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * A connection between two soft RNICs on the in-process fabric, path i over its own link, for
 * benchmarks: {@link #write} moves a buffer with one MP_WRITE and reports the time it took.
 */
public final class Transfer implements AutoCloseable {
    private final FabricNetwork network;
    private final SoftVerbsProvider provider;
    private final Connector connector;
    private final MultipathListener listener;
    public final MultipathConnection client;
    public final MultipathConnection server;

    /**
     * @param linkSpecs one fabric link spec per path
     * @param options client and server options (device set here)
     * @param settings connector settings
     * @param rnic tunes both soft RNICs (window etc.), applied to a builder with addresses and fabric set
     */
    public Transfer(List<String> linkSpecs, ConnectOptions options, CoreSettings settings,
            java.util.function.UnaryOperator<SoftRnicConfig.Builder> rnic) throws Exception {
        this(linkSpecs, options, settings, rnic, new PolicyRegistry());
    }

    /** As above, with the policies the connections may name. */
    public Transfer(List<String> linkSpecs, ConnectOptions options, CoreSettings settings,
            java.util.function.UnaryOperator<SoftRnicConfig.Builder> rnic, PolicyRegistry policies) throws Exception {
        network = new FabricNetwork("bench", 1);
        List<InetAddress> a = new ArrayList<>();
        List<InetAddress> b = new ArrayList<>();
        for (int i = 0; i < linkSpecs.size(); i++) {
            a.add(ip("10.1." + (i + 1) + ".1"));
            b.add(ip("10.1." + (i + 1) + ".2"));
        }
        network.addHost("a", a.toArray(new InetAddress[0]));
        network.addHost("b", b.toArray(new InetAddress[0]));
        for (int i = 0; i < linkSpecs.size(); i++) {
            network.link(a.get(i), b.get(i), LinkSpec.parse(linkSpecs.get(i)));
        }
        provider = new SoftVerbsProvider(rnic.apply(SoftRnicConfig.builder("a").addresses(a).fabric(network, "a")).build(),
                rnic.apply(SoftRnicConfig.builder("b").addresses(b).fabric(network, "b")).build());
        connector = new Connector(n -> provider, new DecomposerComponent(), new ReassemblerComponent(),
                policies, settings);
        listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                options.toBuilder().device("b").build());
        client = connector.connect(listener.localAddress(), options.toBuilder().device("a").build());
        server = listener.accept(10, TimeUnit.SECONDS);
    }

    static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** @return nanoseconds one MP_WRITE of {@code bytes} took (from post to completion) */
    public long write(ByteBuffer src, ByteBuffer dst, long timeoutSeconds) throws Exception {
        MemoryRegion s = client.register(src, EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion d = server.register(dst, EnumSet.of(Access.REMOTE_WRITE));
        try {
            return write(s, d, s.length(), new MpCompletion(), timeoutSeconds);
        } finally {
            s.close();
            d.close();
        }
    }

    /** @return nanoseconds one MP_WRITE of {@code bytes} between registered regions took */
    public long write(MemoryRegion s, MemoryRegion d, int bytes, MpCompletion c, long timeoutSeconds)
            throws Exception {
        long t0 = System.nanoTime();
        client.postWrite(1, s, 0, bytes, d.remote(), 0);
        if (!client.awaitCompletion(c, timeoutSeconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no completion in " + timeoutSeconds + " s");
        }
        long t = System.nanoTime() - t0;
        if (!c.ok()) {
            throw new IllegalStateException("MP_WRITE failed: " + c);
        }
        return t;
    }

    public List<PathStats> stats() {
        return client.pathStats();
    }

    @Override
    public void close() {
        client.close();
        if (server != null) {
            server.close();
        }
        listener.close();
        connector.close();
        provider.close();
        network.close();
    }

    /** Quick experiment: {@code Transfer <paths> <spec> <bytes> [chunkBytes]}. */
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        String spec = args[1];
        int bytes = Integer.parseInt(args[2]);
        int chunk = args.length > 3 ? Integer.parseInt(args[3]) : 1 << 20;
        int window = args.length > 4 ? Integer.parseInt(args[4]) : 4;
        List<String> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            specs.add(spec);
        }
        ConnectOptions o = ConnectOptions.builder().chunkSize(chunk).handshakeTimeout(Duration.ofSeconds(5)).build();
        CoreSettings cs = new CoreSettings("soft", 128, 32, window, 1000, 10_000);
        try (Transfer t = new Transfer(specs, o, cs, b -> b)) {
            ByteBuffer src = ByteBuffer.allocateDirect(bytes);
            ByteBuffer dst = ByteBuffer.allocateDirect(bytes);
            for (int r = 0; r < Integer.getInteger("reps", 3); r++) {
                long ns = t.write(src, dst, 120);
                System.out.printf("%d paths %s %d bytes: %.1f ms, %.1f MB/s%n", n, spec, bytes, ns / 1e6,
                        bytes / (ns / 1e9) / 1e6);
            }
            for (PathStats p : t.stats()) {
                System.out.println("  " + p);
            }
        }
    }
}
