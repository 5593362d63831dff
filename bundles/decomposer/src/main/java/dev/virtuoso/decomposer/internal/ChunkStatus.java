package dev.virtuoso.decomposer.internal;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/** How chunk completion statuses are read: path failures are re-posted, the rest fail the request. */
final class ChunkStatus {
    private ChunkStatus() {
    }

    /** @return the outcome policies see */
    static ChunkOutcome outcome(IbvWcStatus s) {
        return switch (s) {
            case SUCCESS -> ChunkOutcome.SUCCESS;
            case RETRY_EXC_ERR -> ChunkOutcome.RETRY_EXCEEDED;
            case RNR_RETRY_EXC_ERR -> ChunkOutcome.RNR_RETRY_EXCEEDED;
            case WR_FLUSH_ERR -> ChunkOutcome.FLUSHED;
            default -> ChunkOutcome.ERROR;
        };
    }

    /**
     * @return the MP status a failed chunk gives its request, or {@code null} if the failure is the
     *     path's (transport retries, flush, fatal) and the chunk is re-posted elsewhere
     */
    static MpStatus requestFailure(IbvWcStatus s) {
        // LOC_QP_OP_ERR is the QP's own failure (IBA: an internal QP consistency error), not the
        // request's: the core's SGEs always lie in its own registered regions. rxe reports it for
        // every WR of a path whose source address (GID) was removed, so it is re-posted elsewhere.
        return switch (s) {
            case LOC_PROT_ERR, LOC_ACCESS_ERR, LOC_EEC_OP_ERR, LOC_RDD_VIOL_ERR, MW_BIND_ERR ->
                MpStatus.LOCAL_PROTECTION_ERROR;
            case LOC_LEN_ERR -> MpStatus.LOCAL_LENGTH_ERROR;
            case REM_ACCESS_ERR -> MpStatus.REMOTE_ACCESS_ERROR;
            case REM_INV_REQ_ERR, REM_OP_ERR, REM_INV_RD_REQ_ERR, REM_ABORT_ERR -> MpStatus.REMOTE_OPERATION_ERROR;
            default -> null;
        };
    }
}
