package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.AccessErrorConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link AccessErrorConformance} on the fabric with the devices' duty cycles run by their CQs' pollers. */
class FabricInvokedAccessErrorTest extends AccessErrorConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment(true, true);
    }
}
