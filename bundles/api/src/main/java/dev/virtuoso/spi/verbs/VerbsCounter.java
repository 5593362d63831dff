package dev.virtuoso.spi.verbs;

/**
 * Counters a provider keeps per device and per QP. A provider that cannot count something reports
 * -1 for it (see {@link VerbsCounters#get}).
 */
public enum VerbsCounter {
    TX_PACKETS,
    TX_BYTES,
    RX_PACKETS,
    RX_BYTES,
    /** Packets sent again after a timeout or a sequence NAK. */
    RETRANSMITTED_PACKETS,
    /** Retransmit-timer expiries. */
    RETRANSMIT_TIMEOUTS,
    NAK_SEQ_SENT,
    NAK_SEQ_RECEIVED,
    NAK_ACCESS_SENT,
    NAK_ACCESS_RECEIVED,
    NAK_INVALID_SENT,
    NAK_INVALID_RECEIVED,
    RNR_NAK_SENT,
    RNR_NAK_RECEIVED,
    DUPLICATE_REQUESTS,
    /** Drops: header too short, bad version, bad opcode, bad lengths. */
    DROP_MALFORMED,
    /** Drops: ICRC mismatch. */
    DROP_BAD_ICRC,
    /** Drops: destination QP unknown. */
    DROP_UNKNOWN_QP,
    /** Drops: QP not in a state that accepts the packet. */
    DROP_BAD_STATE,
    /** Drops: PSN outside the window (neither expected nor duplicate). */
    DROP_PSN_OUT_OF_WINDOW,
    /** Drops: ACK/response that matches nothing outstanding. */
    DROP_UNEXPECTED_RESPONSE,
    /** Drops: the local receive path could not keep up (buffer or queue full). */
    DROP_RX_OVERRUN,
    /**
     * Drops: a packet for a connected QP from an address (or UDP port, or to a local address)
     * other than the QP's path. Since 1.1.
     */
    DROP_BAD_SOURCE,
    /**
     * READ requests refused because the responder's READ resources (max_dest_rd_atomic) were in
     * use; each is answered with an Invalid Request NAK. Since 1.1.
     */
    READ_RESOURCES_EXCEEDED
}
