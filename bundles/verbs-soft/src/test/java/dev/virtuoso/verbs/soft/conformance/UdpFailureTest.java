package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.FailureConformance;

/** {@link FailureConformance} on the soft RNIC over UDP on loopback aliases. */
class UdpFailureTest extends FailureConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftUdpEnvironment();
    }
}
