package dev.virtuoso.api;

/** How an MP work request ended. */
public enum MpStatus {
    /** Every byte was transferred. */
    SUCCESS,
    /** A local range was outside its region or lacked an access right. */
    LOCAL_PROTECTION_ERROR,
    /** The incoming message was larger than the posted MP_RECV buffer. */
    LOCAL_LENGTH_ERROR,
    /** The peer refused the access (bad rkey, out of bounds, missing right). */
    REMOTE_ACCESS_ERROR,
    /** The peer failed the operation for another reason. */
    REMOTE_OPERATION_ERROR,
    /** Every path failed and none recovered within the configured failover timeout. */
    PATH_FAILURE,
    /** The connection was closed before the work request finished. */
    FLUSHED
}
