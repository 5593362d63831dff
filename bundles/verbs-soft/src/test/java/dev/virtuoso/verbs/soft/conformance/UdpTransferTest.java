package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.TransferConformance;

/** {@link TransferConformance} on the soft RNIC over UDP on loopback aliases. */
class UdpTransferTest extends TransferConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftUdpEnvironment();
    }
}
