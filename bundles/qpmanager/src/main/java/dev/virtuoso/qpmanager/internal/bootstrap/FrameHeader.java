package dev.virtuoso.qpmanager.internal.bootstrap;

import java.nio.ByteBuffer;

/** Writes and checks frame headers (see {@link Protocol}). */
public final class FrameHeader {
    private FrameHeader() {
    }

    /**
     * Writes a header at the buffer's position.
     *
     * @param out destination with 12 bytes remaining
     * @param type frame type
     * @param bodyLength body bytes that follow
     */
    public static void write(ByteBuffer out, int type, int bodyLength) {
        out.putInt(Protocol.MAGIC).put((byte) Protocol.VERSION).put((byte) type).putShort((short) 0)
                .putInt(bodyLength);
    }

    /**
     * Checks the header at absolute index {@code at} and returns its body length.
     *
     * @param in buffer holding at least 12 bytes from {@code at}
     * @param at index of the header's first byte
     * @param maxBody largest body allowed in this phase
     * @return the body length
     * @throws ProtocolException for a bad magic, version, flags or length
     */
    public static int check(ByteBuffer in, int at, int maxBody) throws ProtocolException {
        int magic = in.getInt(at);
        if (magic != Protocol.MAGIC) {
            throw new ProtocolException("not a Virtuoso peer (bad magic 0x" + Integer.toHexString(magic) + ")");
        }
        int version = in.get(at + 4) & 0xFF;
        if (version != Protocol.VERSION) {
            throw new ProtocolException("peer speaks protocol version " + version + ", this side speaks "
                    + Protocol.VERSION, true);
        }
        if (in.getShort(at + 6) != 0) {
            throw new ProtocolException("reserved header flags set");
        }
        int length = in.getInt(at + 8);
        if (length < 0 || length > maxBody) {
            throw new ProtocolException("frame body of " + Integer.toUnsignedString(length)
                    + " bytes exceeds the limit of " + maxBody);
        }
        return length;
    }

    /**
     * @param in buffer
     * @param at index of the header's first byte
     * @return the frame type
     */
    public static int type(ByteBuffer in, int at) {
        return in.get(at + 5) & 0xFF;
    }
}
