package dev.virtuoso.api;

import java.io.IOException;

/** A Virtuoso operation failed for a reason a correct program can meet at run time. */
public class VirtuosoException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Why an operation failed. */
    public enum Reason {
        /** The connection is closing or closed. */
        CLOSED,
        /** Too many MP work requests outstanding; poll completions and retry. */
        QUEUE_FULL,
        /** A wait ran out of time. */
        TIMEOUT,
        /** The peer refused or broke the bootstrap handshake (bad version, secret, format). */
        HANDSHAKE,
        /** No usable path (none configured, none reachable, or all failed). */
        NO_PATH,
        /** The requested verbs provider or device is not available. */
        PROVIDER_UNAVAILABLE,
        /** The requested policy name is not registered and no fallback applies. */
        UNKNOWN_POLICY,
        /** An error from the verbs layer. */
        VERBS,
        /** A network I/O error (bootstrap channel). */
        IO
    }

    private final Reason reason;

    public VirtuosoException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public VirtuosoException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** @return why the operation failed */
    public Reason reason() {
        return reason;
    }
}
