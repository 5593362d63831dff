package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.verbs.disni.emulation.EmulatedDisni;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;
import dev.virtuoso.verbs.soft.rnic.SoftRnic;

/**
 * TESTS ONLY: the multipath core (QP manager, decomposer, reassembler as the bundles wire them)
 * over the DiSNI binding, whose libdisni is emulated by soft RNICs on the in-process fabric (see
 * {@link DisniOverSoft}). Host A has vNICs 10.0.1.1.., host B 10.0.2.1..; path i is the fabric link
 * between 10.0.1.(i+1) and 10.0.2.(i+1), so one path can be cut. Device "a" connects, "b" listens,
 * both through {@code provider=disni}.
 */
public final class DisniCoreFabric implements AutoCloseable {
    public final FabricNetwork network;
    public final List<FabricLink> links = new ArrayList<>();
    private final SoftRnic softA;
    private final SoftRnic softB;
    private final IbvContext spiA;
    private final IbvContext spiB;
    private final EmulatedDisni emulation;
    private final Path dir;
    public final DisniVerbsProvider provider;
    public final Connector connector;
    private MultipathListener listener;

    /** @param specs one fabric link spec per path */
    public DisniCoreFabric(String... specs) throws IOException {
        network = new FabricNetwork("disni-core", 11);
        InetAddress[] a = new InetAddress[specs.length];
        InetAddress[] b = new InetAddress[specs.length];
        for (int i = 0; i < specs.length; i++) {
            a[i] = SoftRnicConfig.literal("10.0.1." + (i + 1));
            b[i] = SoftRnicConfig.literal("10.0.2." + (i + 1));
        }
        network.addHost("A", a);
        network.addHost("B", b);
        for (int i = 0; i < specs.length; i++) {
            links.add(network.link(a[i], b[i], LinkSpec.parse(specs[i])));
        }
        softA = new SoftRnic(SoftRnicConfig.builder("a").fabric(network, "A").build());
        softB = new SoftRnic(SoftRnicConfig.builder("b").fabric(network, "B").build());
        spiA = softA.open();
        spiB = softB.open();
        Map<String, IbvContext> devices = new LinkedHashMap<>();
        devices.put("a", spiA);
        devices.put("b", spiB);
        emulation = EmulatedDisni.install(devices, IbvMtu.MTU_4096);
        dir = Files.createTempDirectory("disni-core");
        Path sysfs = Files.createDirectories(dir.resolve("sys"));
        emulation.writeSysfs(sysfs);
        DisniSettings d = DisniSettings.defaults();
        provider = new DisniVerbsProvider(new DisniSettings(sysfs, 3_000, d.firstQpn(), d.cmPollMillis()));
        connector = new Connector(name -> DisniVerbsProvider.NAME.equals(name) ? provider : null,
                new DecomposerComponent(), new ReassemblerComponent(), new PolicyRegistry(),
                new CoreSettings(DisniVerbsProvider.NAME, 128, 32, 4, 1000, 10_000));
    }

    /** @return connect/accept options through the DiSNI binding */
    public static ConnectOptions.Builder options() {
        return ConnectOptions.builder().provider(DisniVerbsProvider.NAME).handshakeTimeout(Duration.ofSeconds(10));
    }

    /** Connects a (client) to b (server). @return {client, server} */
    public MultipathConnection[] connect(ConnectOptions.Builder client, ConnectOptions.Builder server)
            throws Exception {
        listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                server.device("b").build());
        MultipathConnection c = connector.connect(listener.localAddress(), client.device("a").build());
        MultipathConnection s = listener.accept(20, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("server side did not accept");
        }
        return new MultipathConnection[] {c, s};
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        connector.close();
        provider.close();
        try {
            emulation.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        spiA.close();
        spiB.close();
        softA.close();
        softB.close();
        network.close();
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
