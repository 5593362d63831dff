package dev.virtuoso.verbs.conformance;

/**
 * Optional verbs behaviour some conformance tests need. An environment whose provider cannot offer
 * one says so in {@link ConformanceEnvironment#supports(Feature)}, and those tests are skipped with
 * a message naming the feature (JUnit assumptions), instead of each provider overriding tests.
 *
 * <p>Capabilities a device reports itself are not features: SRQ support is read from
 * {@code queryDevice().maxSrq()}, checked against {@code createSrq}, and the receive queues the
 * core uses without it are tested on every device (see {@code QueueConformance}).
 */
public enum Feature {
    /**
     * QP access flags as the caller sets them at INIT: a responder refuses remote READ or WRITE its
     * QP does not allow.
     */
    QP_ACCESS_FLAGS,
    /**
     * The responder's QP state is observable: after the responder's NIC moved its QP to ERR (e.g. on
     * a remote access error), {@code state()} reports ERR without the QP having polled an error
     * completion or been modified.
     */
    RESPONDER_ERROR_STATE
}
