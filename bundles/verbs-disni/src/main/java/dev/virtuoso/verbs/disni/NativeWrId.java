package dev.virtuoso.verbs.disni;

/**
 * The {@code wr_id} this binding hands to DiSNI instead of the caller's. DiSNI 2.1 leaves
 * {@code qp_num} unset in error completions and its stateful receive call cannot change a posted
 * WR's id, so the native id names the QP (its number, 24 bits) and, for sends, a sequence number;
 * the caller's {@code wr_id} is kept in per-QP rings and restored when polling.
 *
 * <pre>
 * bits 63..40  logical QP number
 * bit  39      1 = receive WR (receives complete in posting order: FIFO, no sequence needed)
 * bits 38..0   send sequence number (index into the QP's send ring)
 * </pre>
 */
final class NativeWrId {
    static final int QPN_SHIFT = 40;
    static final long RECV_BIT = 1L << 39;
    static final long SEQ_MASK = RECV_BIT - 1;

    private NativeWrId() {
    }

    static long send(int qpn, long seq) {
        return ((long) qpn << QPN_SHIFT) | (seq & SEQ_MASK);
    }

    static long recv(int qpn) {
        return ((long) qpn << QPN_SHIFT) | RECV_BIT;
    }

    static int qpn(long id) {
        return (int) (id >>> QPN_SHIFT);
    }

    static boolean isRecv(long id) {
        return (id & RECV_BIT) != 0;
    }

    static long seq(long id) {
        return id & SEQ_MASK;
    }
}
