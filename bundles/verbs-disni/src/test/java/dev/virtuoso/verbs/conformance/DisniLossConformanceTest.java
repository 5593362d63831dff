package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/** The Loss conformance tests through the DiSNI binding (emulated libdisni over soft RNICs). */
class DisniLossConformanceTest extends LossConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
