package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.OrderingConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link OrderingConformance} on the fabric with the devices' duty cycles run by their CQs' pollers. */
class FabricInvokedOrderingTest extends OrderingConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment(true, true);
    }
}
