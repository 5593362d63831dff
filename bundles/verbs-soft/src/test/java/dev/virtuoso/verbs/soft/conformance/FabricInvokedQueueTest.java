package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.QueueConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link QueueConformance} on the fabric with the devices' duty cycles run by their CQs' pollers. */
class FabricInvokedQueueTest extends QueueConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment(true, true);
    }
}
