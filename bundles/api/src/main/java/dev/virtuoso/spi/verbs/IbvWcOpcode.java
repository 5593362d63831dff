package dev.virtuoso.spi.verbs;

/** Completion opcodes ({@code enum ibv_wc_opcode}). Valid only for successful completions. */
public enum IbvWcOpcode {
    SEND,
    RDMA_WRITE,
    RDMA_READ,
    COMP_SWAP,
    FETCH_ADD,
    BIND_MW,
    /** A SEND (with or without immediate) consumed a receive WR. */
    RECV,
    /** An RDMA WRITE with immediate consumed a receive WR; {@code byteLen} is the write length. */
    RECV_RDMA_WITH_IMM
}
