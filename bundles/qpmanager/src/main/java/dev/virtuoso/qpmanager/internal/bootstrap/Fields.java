package dev.virtuoso.qpmanager.internal.bootstrap;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Length-checked reading and writing of message fields. */
public final class Fields {
    private Fields() {
    }

    /** @throws ProtocolException unless {@code n} bytes remain */
    public static void need(ByteBuffer in, int n) throws ProtocolException {
        if (in.remaining() < n) {
            throw new ProtocolException("truncated message: needs " + n + " more bytes, has " + in.remaining());
        }
    }

    public static int u8(ByteBuffer in) throws ProtocolException {
        need(in, 1);
        return in.get() & 0xFF;
    }

    public static int u16(ByteBuffer in) throws ProtocolException {
        need(in, 2);
        return in.getShort() & 0xFFFF;
    }

    public static int i32(ByteBuffer in) throws ProtocolException {
        need(in, 4);
        return in.getInt();
    }

    /** @return a 24-bit value (QP number, PSN) */
    public static int u24(ByteBuffer in, String what) throws ProtocolException {
        int v = i32(in);
        if ((v & 0xFF00_0000) != 0) {
            throw new ProtocolException(what + " exceeds 24 bits: 0x" + Integer.toHexString(v));
        }
        return v;
    }

    /** @return a value in [min, max] */
    public static int range(ByteBuffer in, String what, int min, int max) throws ProtocolException {
        int v = i32(in);
        if (v < min || v > max) {
            throw new ProtocolException(what + " out of range [" + min + ", " + max + "]: " + v);
        }
        return v;
    }

    public static byte[] bytes(ByteBuffer in, int n) throws ProtocolException {
        need(in, n);
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    /** Writes an address as u8 length (4 or 16) and its bytes. */
    public static void address(ByteBuffer out, InetAddress a) {
        byte[] b = a.getAddress();
        out.put((byte) b.length).put(b);
    }

    public static InetAddress address(ByteBuffer in) throws ProtocolException {
        int len = u8(in);
        if (len != 4 && len != 16) {
            throw new ProtocolException("address length must be 4 or 16: " + len);
        }
        try {
            return InetAddress.getByAddress(bytes(in, len));
        } catch (UnknownHostException e) {
            throw new ProtocolException("bad address: " + e.getMessage());
        }
    }

    /** Writes text as u16 length and UTF-8 bytes, cut to {@link Protocol#MAX_TEXT_BYTES}. */
    public static void text(ByteBuffer out, String s) {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        int n = Math.min(b.length, Protocol.MAX_TEXT_BYTES);
        out.putShort((short) n).put(b, 0, n);
    }

    public static String text(ByteBuffer in) throws ProtocolException {
        int n = u16(in);
        if (n > Protocol.MAX_TEXT_BYTES) {
            throw new ProtocolException("text of " + n + " bytes exceeds " + Protocol.MAX_TEXT_BYTES);
        }
        return new String(bytes(in, n), StandardCharsets.UTF_8);
    }

    /** @throws ProtocolException if bytes are left over */
    public static void end(ByteBuffer in, String message) throws ProtocolException {
        if (in.hasRemaining()) {
            throw new ProtocolException(message + " has " + in.remaining() + " trailing bytes");
        }
    }
}
