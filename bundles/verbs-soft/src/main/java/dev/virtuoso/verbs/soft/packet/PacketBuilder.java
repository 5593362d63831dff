package dev.virtuoso.verbs.soft.packet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Encodes one RoCEv2 RC packet at a time into a reusable direct buffer: {@link #begin} writes the
 * BTH, the extension headers follow in their fixed order (RETH, AETH, ImmDt), the caller copies
 * the payload straight from registered memory into {@link #buffer()} at {@link #payloadOffset()},
 * and {@link #finish} writes the pad and the ICRC.
 *
 * <p>Not thread-safe; allocates nothing after construction.
 */
public final class PacketBuilder {
    /** Largest datagram: BTH, RETH, ImmDt, a 4096-byte payload, ICRC. */
    public static final int MAX_DATAGRAM = RcOpcode.BTH_BYTES + RcOpcode.RETH_BYTES
            + RcOpcode.IMM_BYTES + 4096 + RcOpcode.ICRC_BYTES;

    private final ByteBuffer buf;
    private int opcode;
    private int flags;
    private int payloadLength;
    private int payloadOffset;
    private int length;

    /** Creates a builder with a direct buffer of {@link #MAX_DATAGRAM} bytes. */
    public PacketBuilder() {
        buf = ByteBuffer.allocateDirect(MAX_DATAGRAM + 64).order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * Starts a packet and writes its BTH.
     *
     * @param op a valid RC opcode
     * @param solicited SE bit
     * @param destQp destination QP number
     * @param ackReq AckReq bit
     * @param psn packet sequence number
     * @param payload payload bytes that will follow the headers (0..4096)
     * @return this
     */
    public PacketBuilder begin(int op, boolean solicited, int destQp, boolean ackReq, int psn,
            int payload) {
        int f = RcOpcode.flags(op);
        if (f == 0 || payload < 0 || payload > 4096 || (payload > 0 && (f & RcOpcode.PAYLOAD) == 0)) {
            throw new IllegalArgumentException("bad packet: " + RcOpcode.name(op) + " " + payload);
        }
        opcode = op;
        flags = f;
        payloadLength = payload;
        int pad = -payload & 3;
        ByteBuffer b = buf;
        b.clear();
        b.put(0, (byte) op);
        b.put(1, (byte) ((solicited ? 0x80 : 0) | pad << 4));
        b.putShort(2, (short) 0xFFFF);
        b.putInt(4, destQp & Psn.MASK); // byte 4 (FECN/BECN/reserved) = 0
        b.putInt(8, (ackReq ? 0x8000_0000 : 0) | (psn & Psn.MASK));
        payloadOffset = RcOpcode.headerBytes(op);
        length = payloadOffset + payload + pad + RcOpcode.ICRC_BYTES;
        return this;
    }

    /**
     * Writes the RETH (opcodes with {@link RcOpcode#RETH}).
     *
     * @param va remote virtual address
     * @param rkey remote key
     * @param dmaLength message length (unsigned 32-bit)
     * @return this
     */
    public PacketBuilder reth(long va, int rkey, int dmaLength) {
        check(RcOpcode.RETH);
        int p = RcOpcode.BTH_BYTES;
        buf.putLong(p, va);
        buf.putInt(p + 8, rkey);
        buf.putInt(p + 12, dmaLength);
        return this;
    }

    /**
     * Writes the AETH (opcodes with {@link RcOpcode#AETH}).
     *
     * @param syndrome ACK/NAK syndrome
     * @param msn message sequence number
     * @return this
     */
    public PacketBuilder aeth(int syndrome, int msn) {
        check(RcOpcode.AETH);
        buf.putInt(RcOpcode.BTH_BYTES, syndrome << 24 | (msn & Psn.MASK));
        return this;
    }

    /**
     * Writes the ImmDt (opcodes with {@link RcOpcode#IMM}).
     *
     * @param imm immediate data
     * @return this
     */
    public PacketBuilder imm(int imm) {
        check(RcOpcode.IMM);
        int p = RcOpcode.BTH_BYTES + ((flags & RcOpcode.RETH) != 0 ? RcOpcode.RETH_BYTES : 0);
        buf.putInt(p, imm);
        return this;
    }

    /** @return where the payload goes in {@link #buffer()} */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** @return the payload length given to {@link #begin} */
    public int payloadLength() {
        return payloadLength;
    }

    /** @return the packet's opcode */
    public int opcode() {
        return opcode;
    }

    /** @return the datagram length (BTH through ICRC) */
    public int length() {
        return length;
    }

    /** @return the buffer being built (big-endian, direct) */
    public ByteBuffer buffer() {
        return buf;
    }

    /**
     * Zeroes the pad, computes and stores the ICRC, and sets the buffer's position to 0 and limit to
     * the datagram length, ready to send.
     *
     * @param icrc calculator
     * @param srcIp source IP (4 or 16 bytes)
     * @param dstIp destination IP
     * @param srcPort UDP source port
     * @param dstPort UDP destination port
     * @return the buffer
     */
    public ByteBuffer finish(Icrc icrc, byte[] srcIp, byte[] dstIp, int srcPort, int dstPort) {
        ByteBuffer b = buf;
        int end = payloadOffset + payloadLength;
        for (int i = end; i < length - RcOpcode.ICRC_BYTES; i++) {
            b.put(i, (byte) 0);
        }
        b.limit(length).position(0);
        Icrc.store(b, 0, length, icrc.compute(srcIp, dstIp, srcPort, dstPort, b, 0, length));
        return b;
    }

    private void check(int flag) {
        if ((flags & flag) == 0) {
            throw new IllegalStateException(RcOpcode.name(opcode) + " has no such header");
        }
    }
}
