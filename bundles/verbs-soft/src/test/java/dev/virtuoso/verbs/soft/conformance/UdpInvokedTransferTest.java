package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.TransferConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link TransferConformance} on the UDP wire with the devices' duty cycles run by their CQs' pollers. */
class UdpInvokedTransferTest extends TransferConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftUdpEnvironment(true);
    }
}
