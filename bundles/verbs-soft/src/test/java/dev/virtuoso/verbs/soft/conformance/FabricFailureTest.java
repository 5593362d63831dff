package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.FailureConformance;

/** {@link FailureConformance} on the soft RNIC over the in-process fabric. */
class FabricFailureTest extends FailureConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment();
    }
}
