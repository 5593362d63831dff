package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.AccessErrorConformance;

/** {@link AccessErrorConformance} on the soft RNIC over the in-process fabric. */
class FabricAccessErrorTest extends AccessErrorConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment();
    }
}
