package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.AccessErrorConformance;

/** {@link AccessErrorConformance} on the soft RNIC over UDP on loopback aliases. */
class UdpAccessErrorTest extends AccessErrorConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftUdpEnvironment();
    }
}
