package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.LossConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link LossConformance} on the fabric with the devices' duty cycles run by their CQs' pollers. */
class FabricInvokedLossTest extends LossConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment(true, true);
    }
}
