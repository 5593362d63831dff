package dev.virtuoso.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/** Maps SPI enums and flag sets onto the numeric codes DiSNI (and libibverbs) use. */
final class Codes {
    private static final IbvWrOpcode[] WR_OPCODES = IbvWrOpcode.values();

    private Codes() {
    }

    static int wrOpcode(IbvWrOpcode op) {
        return switch (op) {
            case RDMA_WRITE -> IbvSendWR.IBV_WR_RDMA_WRITE;
            case RDMA_WRITE_WITH_IMM -> IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM;
            case SEND -> IbvSendWR.IBV_WR_SEND;
            case SEND_WITH_IMM -> IbvSendWR.IBV_WR_SEND_WITH_IMM;
            case RDMA_READ -> IbvSendWR.IBV_WR_RDMA_READ;
        };
    }

    static int opcodeCount() {
        return WR_OPCODES.length;
    }

    static boolean hasImm(IbvWrOpcode op) {
        return op == IbvWrOpcode.RDMA_WRITE_WITH_IMM || op == IbvWrOpcode.SEND_WITH_IMM;
    }

    static boolean isRdma(IbvWrOpcode op) {
        return op == IbvWrOpcode.RDMA_WRITE || op == IbvWrOpcode.RDMA_WRITE_WITH_IMM
                || op == IbvWrOpcode.RDMA_READ;
    }

    static int sendFlags(int spiFlags) {
        int f = 0;
        if ((spiFlags & IbvSendFlags.FENCE) != 0) {
            f |= IbvSendWR.IBV_SEND_FENCE;
        }
        if ((spiFlags & IbvSendFlags.SIGNALED) != 0) {
            f |= IbvSendWR.IBV_SEND_SIGNALED;
        }
        if ((spiFlags & IbvSendFlags.SOLICITED) != 0) {
            f |= IbvSendWR.IBV_SEND_SOLICITED;
        }
        if ((spiFlags & IbvSendFlags.INLINE) != 0) {
            f |= IbvSendWR.IBV_SEND_INLINE;
        }
        return f;
    }

    static int access(int spiAccess) {
        int a = 0;
        if ((spiAccess & IbvAccess.LOCAL_WRITE) != 0) {
            a |= IbvMr.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((spiAccess & IbvAccess.REMOTE_WRITE) != 0) {
            a |= IbvMr.IBV_ACCESS_REMOTE_WRITE;
        }
        if ((spiAccess & IbvAccess.REMOTE_READ) != 0) {
            a |= IbvMr.IBV_ACCESS_REMOTE_READ;
        }
        if ((spiAccess & IbvAccess.REMOTE_ATOMIC) != 0) {
            a |= IbvMr.IBV_ACCESS_REMOTE_ATOMIC;
        }
        return a;
    }

    /**
     * @param code libibverbs {@code enum ibv_wc_opcode} value as DiSNI reports it
     * @param recv whether the WR was a receive (decides the fallback for unknown codes)
     * @return the SPI opcode
     */
    static IbvWcOpcode wcOpcode(int code, boolean recv) {
        return switch (code) {
            case 0 -> IbvWcOpcode.SEND;
            case 1 -> IbvWcOpcode.RDMA_WRITE;
            case 2 -> IbvWcOpcode.RDMA_READ;
            case 3 -> IbvWcOpcode.COMP_SWAP;
            case 4 -> IbvWcOpcode.FETCH_ADD;
            case 5 -> IbvWcOpcode.BIND_MW;
            case 128 -> IbvWcOpcode.RECV;
            case 129 -> IbvWcOpcode.RECV_RDMA_WITH_IMM;
            default -> recv ? IbvWcOpcode.RECV : IbvWcOpcode.SEND;
        };
    }
}
