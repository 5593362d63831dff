package dev.virtuoso.verbs.soft.udp;

/** Counters kept per {@link UdpWirePort}. */
public enum UdpCounter {
    SENT_DATAGRAMS,
    SENT_BYTES,
    RECEIVED_DATAGRAMS,
    RECEIVED_BYTES,
    /** Local drops: the socket send buffer was full (the kernel took nothing). */
    DROPPED_SEND_BUFFER_FULL,
    /** Local drops: the kernel refused the datagram (no route, message too long, firewall...). */
    DROPPED_SEND_ERROR
}
