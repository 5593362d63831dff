package dev.virtuoso.verbs.soft.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.verbs.conformance.ConformanceBase;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.TransferConformance;

/**
 * Exact data when the fabric reorders packets (5% held back 200 us) and drops 1%: out-of-order
 * requests are NAKed, out-of-order READ responses and ACKs must not complete anything early.
 */
class FabricReorderTest extends ConformanceBase {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment();
    }

    @ParameterizedTest
    @EnumSource(value = IbvWrOpcode.class)
    void exactDataUnderReordering(IbvWrOpcode op) throws Exception {
        ((SoftFabricEnvironment) env).configureLink("reorder=0.05 reorder-delay=200us loss=0.01");
        QpPair p = rig.connect(new QpSettings().timeout(12));
        TransferConformance.transferOnce(rig, p, op, 1 << 20, op.ordinal());
        long nakOrRetry = p.a().counters().get(VerbsCounter.RETRANSMITTED_PACKETS)
                + p.b().counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
        assertTrue(nakOrRetry > 0, "nothing was reordered or lost");
    }
}
