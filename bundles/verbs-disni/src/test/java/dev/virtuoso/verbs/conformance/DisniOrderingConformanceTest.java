package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/** The Ordering conformance tests through the DiSNI binding (emulated libdisni over soft RNICs). */
class DisniOrderingConformanceTest extends OrderingConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
