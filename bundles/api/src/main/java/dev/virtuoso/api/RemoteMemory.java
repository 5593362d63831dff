package dev.virtuoso.api;

import java.nio.ByteBuffer;

/**
 * A peer's registered region as the local side names it in MP_WRITE and MP_READ: its virtual
 * address, remote key and length. Applications exchange these themselves (e.g. with an MP_SEND);
 * {@link #writeTo} and {@link #readFrom} give a fixed 16-byte encoding.
 *
 * @param address virtual address of the region's first byte
 * @param rkey the region's remote key
 * @param length the region's length in bytes
 */
public record RemoteMemory(long address, int rkey, int length) {

    /** Size of the encoding of {@link #writeTo}. */
    public static final int ENCODED_BYTES = 16;

    public RemoteMemory {
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0: " + length);
        }
    }

    /**
     * Writes the 16-byte big-endian encoding (address, rkey, length) at the buffer's position.
     *
     * @param out destination with at least 16 bytes remaining
     */
    public void writeTo(ByteBuffer out) {
        out.putLong(address).putInt(rkey).putInt(length);
    }

    /**
     * Reads the encoding written by {@link #writeTo}.
     *
     * @param in source with at least 16 bytes remaining
     * @return the decoded descriptor
     * @throws IllegalArgumentException if the length is negative
     */
    public static RemoteMemory readFrom(ByteBuffer in) {
        return new RemoteMemory(in.getLong(), in.getInt(), in.getInt());
    }
}
