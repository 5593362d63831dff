package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.OrderingConformance;

/** {@link OrderingConformance} on the soft RNIC over the in-process fabric. */
class FabricOrderingTest extends OrderingConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() {
        return new SoftFabricEnvironment();
    }
}
