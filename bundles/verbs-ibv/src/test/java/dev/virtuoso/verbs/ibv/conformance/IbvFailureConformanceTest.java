package dev.virtuoso.verbs.ibv.conformance;

import dev.virtuoso.verbs.conformance.FailureConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link FailureConformance} through libibverbs (see {@link IbvConformanceEnvironment}). */
class IbvFailureConformanceTest extends FailureConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return IbvConformanceEnvironment.create();
    }
}
