package dev.virtuoso.reassembler.internal;

/**
 * Records of the reassembly control protocol. A control message body is a sequence of records,
 * each starting with its type byte; every field is big-endian; sequence numbers travel as their low
 * 32 bits.
 * <pre>
 * RECV_POSTED  u8 1, u16 n, n x (u32 seq, u64 addr, u32 rkey, u32 capacity, u8 flags[bit0 = writable])
 * CREDIT       u8 2, u32 slots returned
 * SEND_DONE    u8 3, u32 seq, u32 length, u8 (bit7 = a slot credit was charged, bits0..6 = paths)
 * SEND_FAILED  u8 4, u32 seq, u32 length, u8 (bit7 = a slot credit was charged, bits0..3 = reason)
 * INLINE_SEND  u8 5, u32 seq, u32 length, length bytes: a small MP_SEND riding in the message (last)
 * </pre>
 * A large MP_SEND's placement is announced on a path (a SEND_WITH_IMM notice into a receive slot,
 * {@link Notices}); SEND_DONE is only sent when that notice failed.
 */
final class ControlRecords {
    static final byte RECV_POSTED = 1;
    static final byte CREDIT = 2;
    static final byte SEND_DONE = 3;
    static final byte SEND_FAILED = 4;
    static final byte INLINE_SEND = 5;

    static final int RECV_POSTED_HEADER = 3;
    static final int RECV_POSTED_ENTRY = 21;
    static final int CREDIT_BYTES = 5;
    static final int NOTICE_BYTES = 10;
    static final int INLINE_HEADER = 9;
    /**
     * Room a control message keeps for records when a small message rides in it: a report, a
     * credit and two advertisements.
     */
    static final int INLINE_RECORD_ROOM = 64;

    static final int FLAG_WRITABLE = 1;
    static final int FLAG_SMALL = 0x80;
    /** Same bit as {@link #FLAG_SMALL}: the report releases a slot credit its sender was charged. */
    static final int FLAG_CREDIT = 0x80;
    static final int REASON_TOO_LONG = 1;
    static final int REASON_NOT_WRITABLE = 2;
    static final int REASON_FAILED = 3;

    private ControlRecords() {
    }
}
