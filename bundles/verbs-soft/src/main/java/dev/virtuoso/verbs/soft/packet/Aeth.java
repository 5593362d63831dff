package dev.virtuoso.verbs.soft.packet;

/**
 * AETH syndromes (IBA 9.7.5.1) and the RNR NAK timer table (IBA table 45).
 */
public final class Aeth {
    /** ACK with unlimited credits (the only ACK this transport sends). */
    public static final int ACK_UNLIMITED = 0x1F;
    /** RNR NAK: low five bits are the timer code. */
    public static final int RNR_NAK = 0x20;
    /** NAK: PSN sequence error. */
    public static final int NAK_PSN_SEQUENCE = 0x60;
    /** NAK: invalid request. */
    public static final int NAK_INVALID_REQUEST = 0x61;
    /** NAK: remote access error. */
    public static final int NAK_REMOTE_ACCESS = 0x62;
    /** NAK: remote operational error. */
    public static final int NAK_REMOTE_OPERATIONAL = 0x63;

    /** RNR timer per code, in nanoseconds; code 0 is the longest (655.36 ms). */
    private static final long[] RNR_NANOS = {
        655_360_000L, 10_000L, 20_000L, 30_000L, 40_000L, 60_000L, 80_000L, 120_000L,
        160_000L, 240_000L, 320_000L, 480_000L, 640_000L, 960_000L, 1_280_000L, 1_920_000L,
        2_560_000L, 3_840_000L, 5_120_000L, 7_680_000L, 10_240_000L, 15_360_000L,
        20_480_000L, 30_720_000L, 40_960_000L, 61_440_000L, 81_920_000L, 122_880_000L,
        163_840_000L, 245_760_000L, 327_680_000L, 491_520_000L
    };

    private Aeth() {
    }

    /** @param syndrome AETH syndrome byte @return true for an ACK (any credit count) */
    public static boolean isAck(int syndrome) {
        return (syndrome & 0xE0) == 0x00;
    }

    /** @param syndrome AETH syndrome byte @return true for an RNR NAK */
    public static boolean isRnrNak(int syndrome) {
        return (syndrome & 0xE0) == 0x20;
    }

    /** @param syndrome AETH syndrome byte @return true for a NAK (sequence, invalid, access, op) */
    public static boolean isNak(int syndrome) {
        return (syndrome & 0xE0) == 0x60;
    }

    /**
     * @param code RNR timer code 0..31 (as in {@code min_rnr_timer})
     * @return how long a requester waits after an RNR NAK carrying it
     */
    public static long rnrTimerNanos(int code) {
        return RNR_NANOS[code & 0x1F];
    }
}
