package dev.virtuoso.verbs.ibv.conformance;

import dev.virtuoso.verbs.conformance.AccessErrorConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link AccessErrorConformance} through libibverbs (see {@link IbvConformanceEnvironment}). */
class IbvAccessErrorConformanceTest extends AccessErrorConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return IbvConformanceEnvironment.create();
    }
}
