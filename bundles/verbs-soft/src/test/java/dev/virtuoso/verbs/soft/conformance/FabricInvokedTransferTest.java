package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.TransferConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link TransferConformance} on the fabric with the devices' duty cycles run by their CQs' pollers. */
class FabricInvokedTransferTest extends TransferConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment(true, true);
    }
}
