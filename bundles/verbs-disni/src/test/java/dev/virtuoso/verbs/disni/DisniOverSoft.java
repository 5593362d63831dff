package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.disni.emulation.EmulatedDisni;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;
import dev.virtuoso.verbs.soft.rnic.SoftRnic;

/**
 * TESTS ONLY: the DiSNI binding running on DiSNI's Java classes, with DiSNI's provider singleton
 * served by two soft RNICs ("a" on host A: 10.0.0.1, 10.0.1.1; "b" on host B: 10.0.0.2, 10.0.1.2)
 * on an in-process fabric, and a fake sysfs tree describing them as RoCE NICs.
 */
final class DisniOverSoft implements AutoCloseable {
    static final String SPEC = "A=10.0.0.1,10.0.1.1 B=10.0.0.2,10.0.1.2";

    final FabricNetwork network;
    final FabricLink link;
    private final SoftRnic softA;
    private final SoftRnic softB;
    private final IbvContext spiA;
    private final IbvContext spiB;
    final EmulatedDisni emulation;
    final Path sysfs;
    final DisniVerbsProvider provider;

    private DisniOverSoft(Path dir, DisniSettings settings) throws IOException {
        network = FabricNetwork.fromSpec("disni-test", SPEC);
        link = network.link("A", "B", LinkSpec.UNLIMITED);
        softA = new SoftRnic(SoftRnicConfig.builder("a").fabric(network, "A").build());
        softB = new SoftRnic(SoftRnicConfig.builder("b").fabric(network, "B").build());
        try {
            spiA = softA.open();
            spiB = softB.open();
        } catch (VerbsException e) {
            closeSoft();
            throw e;
        }
        Map<String, IbvContext> devices = new LinkedHashMap<>();
        devices.put("a", spiA);
        devices.put("b", spiB);
        emulation = EmulatedDisni.install(devices, IbvMtu.MTU_4096);
        sysfs = Files.createDirectories(dir.resolve("sys"));
        emulation.writeSysfs(sysfs);
        provider = new DisniVerbsProvider(settings.withSysfsRoot(sysfs));
    }

    /**
     * @param dir scratch directory for the sysfs tree
     * @param connectTimeoutMillis RDMA CM connect timeout of the binding
     * @return the running fixture
     */
    static DisniOverSoft start(Path dir, int connectTimeoutMillis) throws IOException {
        DisniSettings d = DisniSettings.defaults();
        return new DisniOverSoft(dir, new DisniSettings(d.sysfsRoot(), connectTimeoutMillis, d.firstQpn(),
                d.cmPollMillis()));
    }

    IbvContext openA() throws VerbsException {
        return provider.openDevice("a");
    }

    IbvContext openB() throws VerbsException {
        return provider.openDevice("b");
    }

    /** @param probability packet loss between A and B, both directions */
    void loss(double probability) {
        link.configure(link.spec().withLoss(probability));
    }

    private void closeSoft() {
        if (spiA != null) {
            spiA.close();
        }
        if (spiB != null) {
            spiB.close();
        }
        softA.close();
        softB.close();
        network.close();
    }

    @Override
    public void close() {
        provider.close();
        try {
            emulation.close();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        closeSoft();
    }
}
