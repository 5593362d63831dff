package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.QueueConformance;

/** {@link QueueConformance} on the soft RNIC over UDP on loopback aliases. */
class UdpQueueTest extends QueueConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftUdpEnvironment();
    }
}
