package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.LossConformance;

/** {@link LossConformance} on the soft RNIC over the in-process fabric. */
class FabricLossTest extends LossConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment();
    }
}
