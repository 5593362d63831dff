package dev.virtuoso.verbs.conformance;

import dev.virtuoso.verbs.disni.DisniConformanceEnvironment;

/**
 * The AccessError conformance tests through the DiSNI binding (emulated libdisni over soft RNICs).
 * The environment declares QP_ACCESS_FLAGS and RESPONDER_ERROR_STATE unsupported, so the suite
 * skips the per-violation test; requester-side remote access errors are covered by
 * {@code DisniBindingTest.errorCompletionsNameTheirQpAndTheQpGoesToErr} and by the other tests here.
 */
class DisniAccessErrorConformanceTest extends AccessErrorConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return DisniConformanceEnvironment.create();
    }
}
