package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/** The Queue conformance tests through the DiSNI binding (emulated libdisni over soft RNICs). */
class DisniQueueConformanceTest extends QueueConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
