package dev.virtuoso.verbs.disni;

import java.nio.ByteOrder;

/**
 * Immediate data byte order. libibverbs keeps {@code imm_data} in network byte order
 * ({@code __be32}), but DiSNI 2.1 copies it between Java ints and native memory in the platform's
 * order. The SPI gives immediate data in host order (a sender's value equals the receiver's, and
 * is big-endian on the wire), so on little-endian hosts the bytes are swapped on the way in and out.
 */
final class WireOrder {
    private static final boolean SWAP = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private WireOrder() {
    }

    /** @param hostValue SPI immediate @return the int DiSNI must be given */
    static int toDisni(int hostValue) {
        return SWAP ? Integer.reverseBytes(hostValue) : hostValue;
    }

    /** @param disniValue the int DiSNI reports @return the SPI (host-order) immediate */
    static int fromDisni(int disniValue) {
        return SWAP ? Integer.reverseBytes(disniValue) : disniValue;
    }
}
