package dev.virtuoso.api;

/** Life cycle of a multipath connection. */
public enum ConnectionState {
    /** Handshake in progress. */
    CONNECTING,
    /** Paths are up; work requests are accepted. */
    ESTABLISHED,
    /** Disconnect in progress: no new work requests; outstanding ones drain or are flushed. */
    CLOSING,
    /** Every resource is released. */
    CLOSED,
    /** The connection failed (e.g. every path failed past the failover timeout). */
    FAILED
}
