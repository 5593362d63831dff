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
    RESPONDER_ERROR_STATE,
    /**
     * A one-sided request the responder's QP access flags forbid completes with REM_ACCESS_ERR (the
     * NAK Remote Access Error), like an rkey violation.
     */
    QP_ACCESS_VIOLATION_IS_REMOTE_ACCESS_ERROR,
    /** An SGE whose lkey names no MR completes with LOC_PROT_ERR. */
    BAD_LKEY_IS_LOCAL_PROTECTION_ERROR,
    /**
     * A SEND longer than the receive completes the receive with LOC_LEN_ERR and the send with
     * REM_INV_REQ_ERR.
     */
    SHORT_RECEIVE_IS_LENGTH_ERROR,
    /** An error completion raises the event of a CQ armed for solicited completions only. */
    ERROR_COMPLETION_IS_SOLICITED,
    /** {@code retry_cnt} 7 means seven retries (only {@code rnr_retry} 7 is infinite). */
    RETRY_COUNT_SEVEN_IS_FINITE,
    /** Work posted to a QP already in ERR completes with WR_FLUSH_ERR. */
    WORK_POSTED_IN_ERROR_IS_FLUSHED
}
