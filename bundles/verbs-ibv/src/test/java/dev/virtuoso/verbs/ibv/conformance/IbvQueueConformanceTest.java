package dev.virtuoso.verbs.ibv.conformance;

import dev.virtuoso.verbs.conformance.QueueConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link QueueConformance} through libibverbs (see {@link IbvConformanceEnvironment}). */
class IbvQueueConformanceTest extends QueueConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return IbvConformanceEnvironment.create();
    }
}
