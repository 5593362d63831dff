package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/** The Failure conformance tests through the DiSNI binding (emulated libdisni over soft RNICs). */
class DisniFailureConformanceTest extends FailureConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
