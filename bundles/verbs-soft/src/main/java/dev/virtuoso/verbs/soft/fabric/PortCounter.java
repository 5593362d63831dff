package dev.virtuoso.verbs.soft.fabric;

/** Counters kept per {@link FabricPort}; drops on links are counted by {@link LinkCounter}. */
public enum PortCounter {
    SENT_DATAGRAMS,
    SENT_BYTES,
    RECEIVED_DATAGRAMS,
    RECEIVED_BYTES,
    /** Local drops: no link leads from this address to the destination address. */
    DROPPED_NO_ROUTE,
    /** Local drops: datagram larger than the fabric's maximum datagram size. */
    DROPPED_TOO_BIG
}
