package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/** The AccessError conformance tests through the DiSNI binding (emulated libdisni over soft RNICs). */
class DisniAccessErrorConformanceTest extends AccessErrorConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
