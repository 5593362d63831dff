package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.FailureConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link FailureConformance} on the fabric with the devices' duty cycles run by their CQs' pollers. */
class FabricInvokedFailureTest extends FailureConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment(true, true);
    }
}
