package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.Feature;
import dev.virtuoso.verbs.disni.emulation.CmFabric;

/**
 * The conformance suite's environment for the DiSNI binding: devices "a" and "b" opened through
 * {@link DisniVerbsProvider} on DiSNI's Java classes, whose provider singleton is served by soft
 * RNICs on the in-process fabric (see {@link DisniOverSoft}). Loss and "vanish" act on the fabric
 * link between the hosts: with RDMA CM connections, closing B's context would send a DREQ, which
 * is not the silent disappearance the suite means. It declares the features DiSNI 2.1 lacks (the
 * suite skips the tests needing them, naming the feature and the reason) and the ACK timeout the
 * RDMA CM chooses. SRQ support is not declared here: the binding reports {@code max_srq = 0} itself
 * and the suite tests that report and the per-QP receive queues used instead.
 */
public final class DisniConformanceEnvironment implements ConformanceEnvironment {
    /** What DiSNI 2.1 cannot do, and why (docs/verbs-disni.md, "Limits"). */
    private static final Map<Feature, String> UNSUPPORTED = new EnumMap<>(Map.of(
            Feature.QP_ACCESS_FLAGS, "the RDMA CM grants remote READ and WRITE on every QP it connects"
                    + " (DiSNI 2.1 has no usable ibv_modify_qp); MR access flags still protect memory",
            Feature.RESPONDER_ERROR_STATE, "DiSNI 2.1 has no ibv_query_qp and no async events, so a responder QP"
                    + " moved to ERR by its NIC keeps reporting its last known state"));

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
    public boolean supports(Feature feature) {
        return !UNSUPPORTED.containsKey(feature);
    }

    @Override
    public String unsupportedReason(Feature feature) {
        return UNSUPPORTED.getOrDefault(feature, "supported");
    }

    /** The RDMA CM, not the QP's owner, sets the ACK timeout; the emulated CM sets this one. */
    @Override
    public int ackTimeoutInEffect(int requested) {
        return CmFabric.ACK_TIMEOUT;
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
