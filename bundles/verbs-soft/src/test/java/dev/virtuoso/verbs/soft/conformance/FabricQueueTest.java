package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.QueueConformance;

/** {@link QueueConformance} on the soft RNIC over the in-process fabric. */
class FabricQueueTest extends QueueConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment();
    }
}
