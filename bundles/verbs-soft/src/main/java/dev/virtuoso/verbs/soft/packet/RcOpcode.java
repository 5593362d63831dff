package dev.virtuoso.verbs.soft.packet;

/**
 * The reliable-connected BTH opcodes and what follows the BTH for each (IBA table 38, as used by
 * RoCEv2). {@link #flags(int)} returns a bit set describing an opcode, 0 for any opcode an RC
 * transport must not accept.
 */
public final class RcOpcode {
    public static final int SEND_FIRST = 0x00;
    public static final int SEND_MIDDLE = 0x01;
    public static final int SEND_LAST = 0x02;
    public static final int SEND_LAST_WITH_IMM = 0x03;
    public static final int SEND_ONLY = 0x04;
    public static final int SEND_ONLY_WITH_IMM = 0x05;
    public static final int WRITE_FIRST = 0x06;
    public static final int WRITE_MIDDLE = 0x07;
    public static final int WRITE_LAST = 0x08;
    public static final int WRITE_LAST_WITH_IMM = 0x09;
    public static final int WRITE_ONLY = 0x0A;
    public static final int WRITE_ONLY_WITH_IMM = 0x0B;
    public static final int READ_REQUEST = 0x0C;
    public static final int READ_RESPONSE_FIRST = 0x0D;
    public static final int READ_RESPONSE_MIDDLE = 0x0E;
    public static final int READ_RESPONSE_LAST = 0x0F;
    public static final int READ_RESPONSE_ONLY = 0x10;
    public static final int ACKNOWLEDGE = 0x11;

    /** The opcode is a valid RC opcode. */
    public static final int VALID = 1;
    /** A RETH (16 bytes) follows the BTH. */
    public static final int RETH = 1 << 1;
    /** An AETH (4 bytes) follows the BTH. */
    public static final int AETH = 1 << 2;
    /** ImmDt (4 bytes) follows the BTH and RETH. */
    public static final int IMM = 1 << 3;
    /** The packet may carry payload. */
    public static final int PAYLOAD = 1 << 4;
    /** First packet of a message. */
    public static final int FIRST = 1 << 5;
    /** Last packet of a message ({@code FIRST | LAST} is an only packet). */
    public static final int LAST = 1 << 6;
    /** Sent by a requester (SEND, WRITE, READ request). */
    public static final int REQUEST = 1 << 7;
    /** Sent by a responder (READ response, ACK). */
    public static final int RESPONSE = 1 << 8;
    /** Part of a SEND message. */
    public static final int SEND = 1 << 9;
    /** Part of an RDMA WRITE message. */
    public static final int WRITE = 1 << 10;
    /** A READ request. */
    public static final int READ = 1 << 11;
    /** A READ response. */
    public static final int READ_RESPONSE = 1 << 12;
    /** An ACK or NAK. */
    public static final int ACK = 1 << 13;

    /** BTH length. */
    public static final int BTH_BYTES = 12;
    /** RETH length. */
    public static final int RETH_BYTES = 16;
    /** AETH length. */
    public static final int AETH_BYTES = 4;
    /** ImmDt length. */
    public static final int IMM_BYTES = 4;
    /** ICRC length. */
    public static final int ICRC_BYTES = 4;

    private static final int[] FLAGS = new int[256];
    private static final int[] HEADER_BYTES = new int[256];
    private static final String[] NAMES = new String[256];

    static {
        int sendReq = VALID | REQUEST | SEND | PAYLOAD;
        int writeReq = VALID | REQUEST | WRITE | PAYLOAD;
        int readResp = VALID | RESPONSE | READ_RESPONSE | PAYLOAD;
        define(SEND_FIRST, "SEND_FIRST", sendReq | FIRST);
        define(SEND_MIDDLE, "SEND_MIDDLE", sendReq);
        define(SEND_LAST, "SEND_LAST", sendReq | LAST);
        define(SEND_LAST_WITH_IMM, "SEND_LAST_WITH_IMM", sendReq | LAST | IMM);
        define(SEND_ONLY, "SEND_ONLY", sendReq | FIRST | LAST);
        define(SEND_ONLY_WITH_IMM, "SEND_ONLY_WITH_IMM", sendReq | FIRST | LAST | IMM);
        define(WRITE_FIRST, "RDMA_WRITE_FIRST", writeReq | FIRST | RETH);
        define(WRITE_MIDDLE, "RDMA_WRITE_MIDDLE", writeReq);
        define(WRITE_LAST, "RDMA_WRITE_LAST", writeReq | LAST);
        define(WRITE_LAST_WITH_IMM, "RDMA_WRITE_LAST_WITH_IMM", writeReq | LAST | IMM);
        define(WRITE_ONLY, "RDMA_WRITE_ONLY", writeReq | FIRST | LAST | RETH);
        define(WRITE_ONLY_WITH_IMM, "RDMA_WRITE_ONLY_WITH_IMM",
                writeReq | FIRST | LAST | RETH | IMM);
        define(READ_REQUEST, "RDMA_READ_REQUEST", VALID | REQUEST | READ | FIRST | LAST | RETH);
        define(READ_RESPONSE_FIRST, "RDMA_READ_RESPONSE_FIRST", readResp | FIRST | AETH);
        define(READ_RESPONSE_MIDDLE, "RDMA_READ_RESPONSE_MIDDLE", readResp);
        define(READ_RESPONSE_LAST, "RDMA_READ_RESPONSE_LAST", readResp | LAST | AETH);
        define(READ_RESPONSE_ONLY, "RDMA_READ_RESPONSE_ONLY", readResp | FIRST | LAST | AETH);
        define(ACKNOWLEDGE, "ACKNOWLEDGE", VALID | RESPONSE | ACK | FIRST | LAST | AETH);
    }

    private static void define(int opcode, String name, int flags) {
        FLAGS[opcode] = flags;
        NAMES[opcode] = name;
        int len = BTH_BYTES;
        if ((flags & RETH) != 0) {
            len += RETH_BYTES;
        }
        if ((flags & AETH) != 0) {
            len += AETH_BYTES;
        }
        if ((flags & IMM) != 0) {
            len += IMM_BYTES;
        }
        HEADER_BYTES[opcode] = len;
    }

    private RcOpcode() {
    }

    /** @param opcode BTH opcode byte (0..255) @return its flag bits, 0 if not a valid RC opcode */
    public static int flags(int opcode) {
        return FLAGS[opcode & 0xFF];
    }

    /** @param opcode a valid RC opcode @return BTH plus extension header bytes */
    public static int headerBytes(int opcode) {
        return HEADER_BYTES[opcode & 0xFF];
    }

    /** @param opcode BTH opcode byte @return its IBA name, or a hex string for invalid ones */
    public static String name(int opcode) {
        String n = NAMES[opcode & 0xFF];
        return n != null ? n : String.format("0x%02X", opcode & 0xFF);
    }

    /**
     * Opcode of one packet of a SEND message.
     *
     * @param first first packet of the message
     * @param last last packet of the message
     * @param imm the message carries immediate data
     * @return the opcode
     */
    public static int send(boolean first, boolean last, boolean imm) {
        if (first && last) {
            return imm ? SEND_ONLY_WITH_IMM : SEND_ONLY;
        }
        if (first) {
            return SEND_FIRST;
        }
        if (last) {
            return imm ? SEND_LAST_WITH_IMM : SEND_LAST;
        }
        return SEND_MIDDLE;
    }

    /**
     * Opcode of one packet of an RDMA WRITE message.
     *
     * @param first first packet of the message
     * @param last last packet of the message
     * @param imm the message carries immediate data
     * @return the opcode
     */
    public static int write(boolean first, boolean last, boolean imm) {
        if (first && last) {
            return imm ? WRITE_ONLY_WITH_IMM : WRITE_ONLY;
        }
        if (first) {
            return WRITE_FIRST;
        }
        if (last) {
            return imm ? WRITE_LAST_WITH_IMM : WRITE_LAST;
        }
        return WRITE_MIDDLE;
    }

    /**
     * Opcode of one READ response packet.
     *
     * @param first first packet of the response
     * @param last last packet of the response
     * @return the opcode
     */
    public static int readResponse(boolean first, boolean last) {
        if (first && last) {
            return READ_RESPONSE_ONLY;
        }
        if (first) {
            return READ_RESPONSE_FIRST;
        }
        return last ? READ_RESPONSE_LAST : READ_RESPONSE_MIDDLE;
    }
}
