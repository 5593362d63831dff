package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.QueueConformance;

/**
 * {@link QueueConformance} on soft RNICs configured without SRQs: they must report
 * {@code max_srq = 0}, refuse {@code createSrq}, and serve private receive queues as the core uses
 * them instead.
 */
class FabricNoSrqQueueTest extends QueueConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment(false, false);
    }
}
