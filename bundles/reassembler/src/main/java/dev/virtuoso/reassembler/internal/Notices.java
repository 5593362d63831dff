package dev.virtuoso.reassembler.internal;

import java.nio.ByteBuffer;

import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.spi.verbs.IbvMr;

/**
 * The sender's placement notices of large MP_SENDs: due notices wait here for a slot credit, then
 * each gets a payload entry in a small registered region until its SEND completed (the payload must
 * stay put while the SEND may be re-posted on another path). Engine thread only.
 *
 * <p>Payload ({@link #PAYLOAD_BYTES} bytes, big-endian): u32 sequence, u32 length, u8 paths. The
 * SEND's immediate is {@link #NOTICE} | the sequence's low 31 bits.
 */
final class Notices {
    /** Immediate bit of a notice; small messages' immediates have it clear. */
    static final int NOTICE = 0x8000_0000;
    /** Sequence bits of an immediate. */
    static final int SEQ_MASK = 0x7FFF_FFFF;
    static final int PAYLOAD_BYTES = 9;
    static final int ENTRY_BYTES = 16;

    private final IbvMr mr;
    private final ByteBuffer payload;
    private final int[] free;
    private int freeCount;
    private NoticeQueue due;

    /** @param mr registered region of at least {@code entries x ENTRY_BYTES} bytes over {@code payload} */
    Notices(IbvMr mr, ByteBuffer payload, int entries) {
        if (payload.capacity() < entries * ENTRY_BYTES) {
            throw new IllegalArgumentException("notice region too small: " + payload.capacity());
        }
        this.mr = mr;
        this.payload = payload;
        this.free = new int[entries];
        for (int i = 0; i < entries; i++) {
            free[i] = entries - 1 - i;
        }
        freeCount = entries;
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
