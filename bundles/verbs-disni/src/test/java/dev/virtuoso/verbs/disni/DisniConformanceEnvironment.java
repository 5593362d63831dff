package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/**
 * The conformance suite's environment for the DiSNI binding: devices "a" and "b" opened through
 * {@link DisniVerbsProvider} on DiSNI's Java classes, whose provider singleton is served by soft
 * RNICs on the in-process fabric (see {@link DisniOverSoft}). Loss and "vanish" act on the fabric
 * link between the hosts: with RDMA CM connections, closing B's context would send a DREQ, which
 * is not the silent disappearance the suite means.
 */
public final class DisniConformanceEnvironment implements ConformanceEnvironment {
    private final Path dir;
    private final DisniOverSoft fixture;

    private DisniConformanceEnvironment(Path dir, DisniOverSoft fixture) {
        this.dir = dir;
        this.fixture = fixture;
    }

    /**
     * A handshake here takes milliseconds; the 3 s connect timeout bounds how long a QP whose peer
     * never connects (e.g. went to ERR before starting its side) waits before its work fails.
     *
     * @return a fresh environment (fabric, two soft RNICs, emulated libdisni, fake sysfs)
     */
    public static DisniConformanceEnvironment create() throws IOException {
        Path dir = Files.createTempDirectory("disni-conformance");
        return new DisniConformanceEnvironment(dir, DisniOverSoft.start(dir, 3_000));
    }

    @Override
    public String name() {
        return "disni/emulated-libdisni/soft-fabric";
    }

    @Override
    public IbvContext openA() throws Exception {
        return fixture.openA();
    }

    @Override
    public IbvContext openB() throws Exception {
        return fixture.openB();
    }

    @Override
    public IbvMtu mtu() {
        return IbvMtu.MTU_4096;
    }

    @Override
    public boolean setLossRate(double probability) {
        fixture.loss(probability);
        return true;
    }

    @Override
    public void vanish(IbvContext b) {
        fixture.loss(1.0);
    }

    @Override
    public void close() {
        fixture.close();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
