package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/**
 * The Queue conformance tests through the DiSNI binding (emulated libdisni over soft RNICs). The
 * environment declares SRQ unsupported, so the suite skips the SRQ test.
 */
class DisniQueueConformanceTest extends QueueConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
