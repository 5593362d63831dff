package dev.virtuoso.verbs.ibv.conformance;

import dev.virtuoso.verbs.conformance.OrderingConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link OrderingConformance} through libibverbs (see {@link IbvConformanceEnvironment}). */
class IbvOrderingConformanceTest extends OrderingConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return IbvConformanceEnvironment.create();
    }
}
