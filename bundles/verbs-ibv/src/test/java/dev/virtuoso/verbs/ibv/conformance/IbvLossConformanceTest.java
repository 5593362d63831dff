package dev.virtuoso.verbs.ibv.conformance;

import dev.virtuoso.verbs.conformance.LossConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link LossConformance} through libibverbs (see {@link IbvConformanceEnvironment}). */
class IbvLossConformanceTest extends LossConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return IbvConformanceEnvironment.create();
    }
}
