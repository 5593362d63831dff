package dev.virtuoso.api;

/** Kinds of MP work request. */
public enum MpOpcode {
    /** One-sided write into a peer region, split over the paths. */
    WRITE,
    /** One-sided read from a peer region, split over the paths. */
    READ,
    /** Two-sided send; consumes one MP_RECV at the peer. */
    SEND,
    /** A posted receive buffer that an MP_SEND of the peer filled. */
    RECV
}
