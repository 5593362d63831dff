package dev.virtuoso.spi.verbs;

/** QP states ({@code enum ibv_qp_state}); RC QPs go RESET, INIT, RTR, RTS and end in ERR. */
public enum IbvQpState {
    /** Created; nothing is processed. */
    RESET,
    /** Receive WRs may be posted; nothing is processed. */
    INIT,
    /** Ready to receive: incoming packets are processed. */
    RTR,
    /** Ready to send: send WRs are processed. */
    RTS,
    /** Send queue drained (not used by Virtuoso). */
    SQD,
    /** Send queue error (not used for RC). */
    SQE,
    /** Error: nothing is processed; outstanding and newly posted WRs complete with WR_FLUSH_ERR. */
    ERR
}
