package dev.virtuoso.reassembler.internal;

import java.nio.ByteBuffer;

import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.spi.verbs.IbvMr;

/**
 * The sender's messages on the paths other than small MP_SENDs, in one small registered region:
 * placement notices of large MP_SENDs (due notices wait here for a slot credit, then each gets a
 * payload entry until its SEND completed: the payload must stay put while the SEND may be re-posted
 * on another path) and, after the entries, the buffer of the one control message in flight
 * ({@link #controlBuffer()}, {@link #CONTROL_BYTES}). Engine thread only.
 *
 * <p>Immediates: bit 31 clear, a small message (31 sequence bits); {@link #NOTICE}, a placement
 * notice (30 sequence bits); {@link #CONTROL}, a control message (30 bits of its own sequence).
 * Notice payload ({@link #PAYLOAD_BYTES} bytes, big-endian): u32 sequence, u32 length, u8 paths.
 */
final class Notices {
    /** Immediate class of a notice; small messages' immediates have bit 31 clear. */
    static final int NOTICE = 0x8000_0000;
    /** Immediate class of a control message. */
    static final int CONTROL = 0xC000_0000;
    /** The class bits of an immediate whose bit 31 is set. */
    static final int CLASS_MASK = 0xC000_0000;
    /** Sequence bits of a notice's or a control message's immediate. */
    static final int SEQ_MASK = 0x3FFF_FFFF;
    static final int PAYLOAD_BYTES = 9;
    static final int ENTRY_BYTES = 16;
    /** At most this many bytes of records per control message. */
    static final int RECORD_BYTES = 4096;
    /**
     * The control message buffer: records and, when one rides along, a small message
     * ({@link ControlRecords#INLINE_SEND}); no message is longer than the peer's slot.
     */
    static final int CONTROL_BYTES = 8192;

    private final IbvMr mr;
    private final ByteBuffer payload;
    private final ByteBuffer control;
    private final int[] free;
    private int freeCount;
    private NoticeQueue due;

    /** @return bytes of the region for {@code entries} notice entries and the control buffer */
    static int regionBytes(int entries) {
        return Math.addExact(Math.multiplyExact(entries, ENTRY_BYTES), CONTROL_BYTES);
    }

    /** @param mr registered region of at least {@link #regionBytes}{@code (entries)} bytes over {@code payload} */
    Notices(IbvMr mr, ByteBuffer payload, int entries) {
        if (payload.capacity() < regionBytes(entries)) {
            throw new IllegalArgumentException("notice region too small: " + payload.capacity());
        }
        this.mr = mr;
        this.payload = payload;
        this.control = payload.duplicate().clear().position(entries * ENTRY_BYTES).limit(regionBytes(entries)).slice();
        this.free = new int[entries];
        for (int i = 0; i < entries; i++) {
            free[i] = entries - 1 - i;
        }
        freeCount = entries;
    }

    /** @return the control message buffer (absolute indexing from 0; its owner is the reassembly) */
    ByteBuffer controlBuffer() {
        return control;
    }

    /** @return the {@link PlacementNotice#slot()} of the control message */
    int controlSlot() {
        return free.length;
    }

    /** Describes the control message of {@code length} bytes with immediate {@code imm} in {@code out}. */
    void control(PlacementNotice out, int length, int imm, boolean carriesSend) {
        out.set(free.length, mr.address() + (long) free.length * ENTRY_BYTES, mr.lkey(), length, imm, -1,
                carriesSend);
    }

    /** @param capacity most notices due at once (the peer's receives, twice) */
    void start(int capacity) {
        due = new NoticeQueue(capacity);
    }

    boolean pending() {
        return due != null && !due.isEmpty();
    }

    /** A large MP_SEND was placed: its notice is due. */
    boolean add(long seq, long length, int paths) {
        return due.add(ControlRecords.SEND_DONE, seq, length, paths);
    }

    /** @return true if a due notice can take an entry now */
    boolean ready() {
        return pending() && freeCount > 0;
    }

    /** Moves the oldest due notice into a payload entry; call only when {@link #ready()}. */
    void take(PlacementNotice out) {
        int slot = free[--freeCount];
        long seq = due.headSeq();
        int at = slot * ENTRY_BYTES;
        payload.putInt(at, (int) seq).putInt(at + 4, (int) due.headLength()).put(at + 8, (byte) due.headExtra());
        due.removeHead();
        out.set(slot, mr.address() + at, mr.lkey(), PAYLOAD_BYTES, NOTICE | (int) seq & SEQ_MASK, seq);
    }

    /**
     * The notice's SEND ended; its entry is free again.
     *
     * @return {seq, length, paths} of the notice
     */
    long[] release(int slot, long[] into) {
        if (slot < 0 || slot >= free.length || freeCount == free.length) {
            throw new IllegalStateException("no notice in slot " + slot);
        }
        int at = slot * ENTRY_BYTES;
        into[0] = Integer.toUnsignedLong(payload.getInt(at));
        into[1] = Integer.toUnsignedLong(payload.getInt(at + 4));
        into[2] = payload.get(at + 8) & 0xFF;
        free[freeCount++] = slot;
        return into;
    }

    void close() {
        mr.close();
    }
}
