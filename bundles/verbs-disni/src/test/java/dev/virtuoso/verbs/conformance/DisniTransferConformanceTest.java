package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/** The Transfer conformance tests through the DiSNI binding (emulated libdisni over soft RNICs). */
class DisniTransferConformanceTest extends TransferConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
