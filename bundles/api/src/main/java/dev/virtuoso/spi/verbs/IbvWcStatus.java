package dev.virtuoso.spi.verbs;

/** Completion status ({@code enum ibv_wc_status}), in libibverbs order. */
public enum IbvWcStatus {
    SUCCESS,
    /** Local length error: a received message is longer than the receive WR's buffers. */
    LOC_LEN_ERR,
    LOC_QP_OP_ERR,
    LOC_EEC_OP_ERR,
    /** Local protection error: an SGE is outside its region or lacks access rights. */
    LOC_PROT_ERR,
    /** Flushed: the QP is in ERR; the WR was not (fully) executed. */
    WR_FLUSH_ERR,
    MW_BIND_ERR,
    /** Unexpected or malformed response from the responder. */
    BAD_RESP_ERR,
    LOC_ACCESS_ERR,
    /** Remote invalid request (e.g. unsupported opcode, length too large for its receive WR). */
    REM_INV_REQ_ERR,
    /** Remote access error: bad rkey, out of bounds, or missing access flag at the responder. */
    REM_ACCESS_ERR,
    /** Remote operational error at the responder. */
    REM_OP_ERR,
    /** Transport retries exhausted: no ACK after {@code retry_cnt} retransmissions. */
    RETRY_EXC_ERR,
    /** RNR retries exhausted: the responder kept having no receive WR. */
    RNR_RETRY_EXC_ERR,
    LOC_RDD_VIOL_ERR,
    REM_INV_RD_REQ_ERR,
    REM_ABORT_ERR,
    INV_EECN_ERR,
    INV_EEC_STATE_ERR,
    FATAL_ERR,
    RESP_TIMEOUT_ERR,
    GENERAL_ERR;

    private static final IbvWcStatus[] VALUES = values();

    /**
     * @param code the libibverbs numeric status
     * @return the status, {@link #GENERAL_ERR} for unknown codes
     */
    public static IbvWcStatus of(int code) {
        return code >= 0 && code < VALUES.length ? VALUES[code] : GENERAL_ERR;
    }
}
