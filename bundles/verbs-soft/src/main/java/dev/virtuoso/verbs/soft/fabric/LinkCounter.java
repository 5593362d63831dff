package dev.virtuoso.verbs.soft.fabric;

/** Counters kept per link direction by the in-process fabric. */
public enum LinkCounter {
    /** Packets handed to the link by a sender (before any drop). */
    OFFERED_PACKETS,
    OFFERED_BYTES,
    /** Packets placed in the receiving port's queue. */
    DELIVERED_PACKETS,
    DELIVERED_BYTES,
    /** Packets held back by the reorder emulation (still delivered unless dropped later). */
    REORDERED_PACKETS,
    /** Drops: the queue in front of the rate limiter was full. */
    DROPPED_TAIL,
    /** Drops: random loss. */
    DROPPED_LOSS,
    /** Drops: the link was down when the packet was sent or went down while it was in flight. */
    DROPPED_DOWN,
    /** Drops: nothing bound to the destination address and UDP port. */
    DROPPED_NO_ENDPOINT,
    /** Drops: the receiving port's queue was full (its engine did not keep up). */
    DROPPED_RX_OVERFLOW
}
