package dev.virtuoso.spi.verbs;

/** Send work-request opcodes ({@code enum ibv_wr_opcode}) supported on RC QPs. */
public enum IbvWrOpcode {
    /** One-sided write into the peer's region at {@code remoteAddr}/{@code rkey}. */
    RDMA_WRITE,
    /** Write plus 32-bit immediate; consumes one receive WR at the peer. */
    RDMA_WRITE_WITH_IMM,
    /** Two-sided send; consumes one receive WR at the peer. */
    SEND,
    /** Send plus 32-bit immediate. */
    SEND_WITH_IMM,
    /** One-sided read from the peer's region into the local SGEs. */
    RDMA_READ
}
