package dev.virtuoso.verbs.soft.packet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A decoded RoCEv2 RC packet: a reusable view over a datagram buffer. {@link #decode} validates
 * everything a transport needs before trusting a field (known opcode, transport version, P_Key,
 * header and pad lengths); the payload stays in the datagram buffer and is copied once, straight
 * into registered memory.
 *
 * <p>Not thread-safe; allocates nothing.
 */
public final class RocePacket {
    /** Largest payload of one packet: the largest IBA path MTU. A longer datagram is malformed. */
    public static final int MAX_PAYLOAD = 4096;
    /** BTH opcode. */
    public int opcode;
    /** {@link RcOpcode#flags} of the opcode. */
    public int flags;
    /** Solicited event bit. */
    public boolean solicited;
    /** AckReq bit. */
    public boolean ackReq;
    /** Pad count (0..3). */
    public int padCount;
    /** Destination QP number (24 bits). */
    public int destQp;
    /** PSN (24 bits). */
    public int psn;
    /** RETH virtual address (when {@link RcOpcode#RETH}). */
    public long va;
    /** RETH R_Key. */
    public int rkey;
    /** RETH DMA length, unsigned. */
    public long dmaLength;
    /** AETH syndrome (when {@link RcOpcode#AETH}). */
    public int syndrome;
    /** AETH MSN. */
    public int msn;
    /** Immediate data as sent (network order value read big-endian). */
    public int imm;
    /** The buffer the packet was decoded from. */
    public ByteBuffer buffer;
    /** Index of the first payload byte in {@link #buffer}. */
    public int payloadOffset;
    /** Payload bytes (without pad). */
    public int payloadLength;
    /** Index of the BTH in {@link #buffer}. */
    public int offset;
    /** UDP payload length, BTH through ICRC. */
    public int length;

    /**
     * Decodes and validates a datagram.
     *
     * @param b the datagram buffer (either byte order; fields are read big-endian)
     * @param off index of the BTH
     * @param len UDP payload length, BTH through ICRC
     * @return false if the datagram is not a well-formed RC packet (the fields are then undefined)
     */
    public boolean decode(ByteBuffer b, int off, int len) {
        if (len < RcOpcode.BTH_BYTES + RcOpcode.ICRC_BYTES || off < 0 || off + len > b.limit()) {
            return false;
        }
        boolean swap = b.order() != ByteOrder.BIG_ENDIAN;
        int op = b.get(off) & 0xFF;
        int f = RcOpcode.flags(op);
        if (f == 0) {
            return false;
        }
        int b1 = b.get(off + 1) & 0xFF;
        if ((b1 & 0x0F) != 0) {
            return false; // transport header version must be 0
        }
        int pkey = short16(b, off + 2, swap);
        if ((pkey & 0x7FFF) != 0x7FFF) {
            return false; // only the default partition exists
        }
        int header = RcOpcode.headerBytes(op);
        int payloadAndPad = len - header - RcOpcode.ICRC_BYTES;
        int pad = (b1 >>> 4) & 3;
        if (payloadAndPad < 0 || (payloadAndPad & 3) != 0 || pad > payloadAndPad
                || payloadAndPad - pad > MAX_PAYLOAD
                || ((f & RcOpcode.PAYLOAD) == 0 && payloadAndPad != 0)) {
            return false;
        }
        opcode = op;
        flags = f;
        solicited = (b1 & 0x80) != 0;
        padCount = pad;
        destQp = int32(b, off + 4, swap) & Psn.MASK;
        int w = int32(b, off + 8, swap);
        ackReq = w < 0;
        psn = w & Psn.MASK;
        int p = off + RcOpcode.BTH_BYTES;
        if ((f & RcOpcode.RETH) != 0) {
            long hi = int32(b, p, swap) & 0xFFFFFFFFL;
            long lo = int32(b, p + 4, swap) & 0xFFFFFFFFL;
            va = hi << 32 | lo;
            rkey = int32(b, p + 8, swap);
            dmaLength = int32(b, p + 12, swap) & 0xFFFFFFFFL;
            p += RcOpcode.RETH_BYTES;
        }
        if ((f & RcOpcode.AETH) != 0) {
            int a = int32(b, p, swap);
            syndrome = a >>> 24;
            msn = a & Psn.MASK;
            p += RcOpcode.AETH_BYTES;
        }
        if ((f & RcOpcode.IMM) != 0) {
            imm = int32(b, p, swap);
            p += RcOpcode.IMM_BYTES;
        }
        buffer = b;
        offset = off;
        length = len;
        payloadOffset = p;
        payloadLength = payloadAndPad - pad;
        return true;
    }

    /** @return true if {@code flags} has every bit of {@code mask} */
    public boolean is(int mask) {
        return (flags & mask) == mask;
    }

    private static int int32(ByteBuffer b, int i, boolean swap) {
        int v = b.getInt(i);
        return swap ? Integer.reverseBytes(v) : v;
    }

    private static int short16(ByteBuffer b, int i, boolean swap) {
        short v = b.getShort(i);
        return (swap ? Short.reverseBytes(v) : v) & 0xFFFF;
    }

    @Override
    public String toString() {
        return RcOpcode.name(opcode) + " qp=" + destQp + " psn=" + psn + (ackReq ? " A" : "")
                + " payload=" + payloadLength;
    }
}
