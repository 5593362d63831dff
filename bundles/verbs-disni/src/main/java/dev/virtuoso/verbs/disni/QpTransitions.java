package dev.virtuoso.verbs.disni;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The RC state machine of {@code ibv_modify_qp} as the SPI specifies it: which transitions are
 * legal and which attribute masks each one requires.
 */
final class QpTransitions {
    private QpTransitions() {
    }

    /**
     * @param from current state
     * @param attr requested attributes
     * @param mask attribute mask
     * @return the state after the modify
     * @throws VerbsException {@link VerbsException#EINVAL} for an illegal transition or a missing
     *     required attribute
     */
    static IbvQpState target(IbvQpState from, IbvQpAttr attr, int mask) throws VerbsException {
        validateValues(attr, mask);
        if ((mask & IbvQpAttr.STATE) == 0) {
            // attribute-only modify: allowed in the states that accept one
            if (from == IbvQpState.RESET || from == IbvQpState.ERR) {
                throw new VerbsException(VerbsException.EINVAL, "modify without STATE in " + from);
            }
            return from;
        }
        IbvQpState to = attr.qpState();
        if (to == null) {
            throw new VerbsException(VerbsException.EINVAL, "STATE masked but qpState is null");
        }
        switch (to) {
            case RESET, ERR:
                return to;
            case INIT:
                if (from == IbvQpState.RESET) {
                    require(mask, IbvQpAttr.MASK_INIT, from, to);
                    return to;
                }
                if (from == IbvQpState.INIT) {
                    return to;
                }
                break;
            case RTR:
                if (from == IbvQpState.INIT) {
                    require(mask, IbvQpAttr.MASK_RTR, from, to);
                    return to;
                }
                break;
            case RTS:
                if (from == IbvQpState.RTR) {
                    require(mask, IbvQpAttr.MASK_RTS, from, to);
                    return to;
                }
                if (from == IbvQpState.RTS) {
                    return to;
                }
                break;
            default:
                break;
        }
        throw new VerbsException(VerbsException.EINVAL, "illegal QP transition " + from + " -> " + to);
    }

    /** Range checks of the masked attribute values, as the SPI documents them. */
    static void validateValues(IbvQpAttr a, int mask) throws VerbsException {
        check(mask, IbvQpAttr.ACCESS_FLAGS, (a.qpAccessFlags() & ~IbvAccess.ALL) == 0, "access flags");
        check(mask, IbvQpAttr.PKEY_INDEX, a.pkeyIndex() >= 0 && a.pkeyIndex() <= 0xFFFF, "pkey index");
        check(mask, IbvQpAttr.PORT, a.portNum() >= 1 && a.portNum() <= 255, "port");
        check(mask, IbvQpAttr.PATH_MTU, a.pathMtu() != null, "path MTU");
        check(mask, IbvQpAttr.TIMEOUT, a.timeout() >= 0 && a.timeout() <= 31, "timeout");
        check(mask, IbvQpAttr.RETRY_CNT, a.retryCnt() >= 0 && a.retryCnt() <= 7, "retry_cnt");
        check(mask, IbvQpAttr.RNR_RETRY, a.rnrRetry() >= 0 && a.rnrRetry() <= 7, "rnr_retry");
        check(mask, IbvQpAttr.MIN_RNR_TIMER, a.minRnrTimer() >= 0 && a.minRnrTimer() <= 31, "min_rnr_timer");
        check(mask, IbvQpAttr.RQ_PSN, (a.rqPsn() & ~0xFFFFFF) == 0, "rq_psn");
        check(mask, IbvQpAttr.SQ_PSN, (a.sqPsn() & ~0xFFFFFF) == 0, "sq_psn");
        check(mask, IbvQpAttr.DEST_QPN, (a.destQpNum() & ~0xFFFFFF) == 0, "dest_qp_num");
        check(mask, IbvQpAttr.MAX_QP_RD_ATOMIC, a.maxRdAtomic() >= 0 && a.maxRdAtomic() <= 255, "max_rd_atomic");
        check(mask, IbvQpAttr.MAX_DEST_RD_ATOMIC, a.maxDestRdAtomic() >= 0 && a.maxDestRdAtomic() <= 255,
                "max_dest_rd_atomic");
        check(mask, IbvQpAttr.AV, a.ahAttr().dgid() != null && a.ahAttr().sgidIndex() >= 0
                && a.ahAttr().hopLimit() >= 0 && a.ahAttr().hopLimit() <= 255
                && a.ahAttr().trafficClass() >= 0 && a.ahAttr().trafficClass() <= 255
                && (a.ahAttr().flowLabel() & ~0xFFFFF) == 0, "address vector");
    }

    private static void check(int mask, int bit, boolean ok, String what) throws VerbsException {
        if ((mask & bit) != 0 && !ok) {
            throw new VerbsException(VerbsException.EINVAL, "modifyQp: invalid " + what);
        }
    }

    private static void require(int mask, int required, IbvQpState from, IbvQpState to)
            throws VerbsException {
        int missing = required & ~mask;
        if (missing != 0) {
            throw new VerbsException(VerbsException.EINVAL, from + " -> " + to
                    + " misses required attribute mask bits 0x" + Integer.toHexString(missing));
        }
    }
}
