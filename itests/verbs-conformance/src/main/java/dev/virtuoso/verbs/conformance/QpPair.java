package dev.virtuoso.verbs.conformance;

import dev.virtuoso.spi.verbs.IbvQp;

/**
 * Two connected RC QPs: {@code a} on device A, {@code b} on device B.
 *
 * @param a A's end
 * @param b B's end
 */
public record QpPair(IbvQp a, IbvQp b) {
}
