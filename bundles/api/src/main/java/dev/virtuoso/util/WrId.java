package dev.virtuoso.util;

/**
 * The layout of a work-request identifier (wr_id) that the core and its components post: bits
 * 60..63 hold a tag that the engine assigns to each component (so it can route the completions of a
 * shared CQ; the tag values belong to the engine, not here), bits 32..59 a generation and bits 0..31
 * a slot. A completion whose generation differs from the slot's current one is stale (the slot was
 * freed and reused meanwhile).
 */
public final class WrId {
    /** Mask of the tag bits, 60..63. */
    public static final long TAG_MASK = 0xFL << 60;
    /** Bits of the generation field. */
    public static final int GENERATION_BITS = 28;
    /** Mask of a generation value (before shifting). */
    public static final int GENERATION_MASK = (1 << GENERATION_BITS) - 1;

    private static final int SLOT_BITS = 32;
    private static final long SLOT_MASK = 0xFFFF_FFFFL;

    private WrId() {
    }

    /**
     * @param tag a value with only bits 60..63 set, not zero
     * @return {@code tag}
     * @throws IllegalArgumentException if it is not a tag
     */
    public static long checkTag(long tag) {
        if (tag == 0 || (tag & ~TAG_MASK) != 0) {
            throw new IllegalArgumentException("not a wr_id tag (bits 60..63 only): 0x" + Long.toHexString(tag));
        }
        return tag;
    }

    /**
     * @param tag the component's tag (bits 60..63)
     * @param generation the slot's generation; only its low {@value #GENERATION_BITS} bits are kept
     * @param slot the slot, not negative
     * @return the wr_id
     */
    public static long pack(long tag, int generation, int slot) {
        return tag | ((long) (generation & GENERATION_MASK) << SLOT_BITS) | (slot & SLOT_MASK);
    }

    /** @return the tag bits of {@code wrId} */
    public static long tag(long wrId) {
        return wrId & TAG_MASK;
    }

    /** @return the generation field of {@code wrId} */
    public static int generation(long wrId) {
        return (int) ((wrId >>> SLOT_BITS) & GENERATION_MASK);
    }

    /** @return the slot field of {@code wrId}, 0..2^32-1 */
    public static long slot(long wrId) {
        return wrId & SLOT_MASK;
    }
}
