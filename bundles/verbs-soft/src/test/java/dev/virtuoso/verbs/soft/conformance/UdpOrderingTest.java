package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.OrderingConformance;

/** {@link OrderingConformance} on the soft RNIC over UDP on loopback aliases. */
class UdpOrderingTest extends OrderingConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftUdpEnvironment();
    }
}
