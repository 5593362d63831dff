package dev.virtuoso.verbs.disni;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;

/**
 * The attributes a DiSNI QP was given through modifyQp, kept for {@link DisniQp#queryQp} and for
 * the values the binding does use (port, retry counts, ACK timeout). Most of them are chosen by the
 * RDMA CM on the wire and are only recorded (see {@link DisniQp}). Guarded by the owning QP.
 */
final class RecordedQpAttrs {
    private final IbvQpAttr a = new IbvQpAttr();

    /** Copies the masked values of {@code from}. */
    void record(IbvQpAttr from, int mask) {
        if ((mask & IbvQpAttr.ACCESS_FLAGS) != 0) {
            a.qpAccessFlags(from.qpAccessFlags() & IbvAccess.ALL);
        }
        if ((mask & IbvQpAttr.PKEY_INDEX) != 0) {
            a.pkeyIndex(from.pkeyIndex());
        }
        if ((mask & IbvQpAttr.PORT) != 0) {
            a.portNum(from.portNum());
        }
        if ((mask & IbvQpAttr.AV) != 0) {
            a.ahAttr().copyFrom(from.ahAttr());
        }
        if ((mask & IbvQpAttr.PATH_MTU) != 0) {
            a.pathMtu(from.pathMtu());
        }
        if ((mask & IbvQpAttr.DEST_QPN) != 0) {
            a.destQpNum(from.destQpNum());
        }
        if ((mask & IbvQpAttr.RQ_PSN) != 0) {
            a.rqPsn(from.rqPsn());
        }
        if ((mask & IbvQpAttr.SQ_PSN) != 0) {
            a.sqPsn(from.sqPsn());
        }
        if ((mask & IbvQpAttr.MAX_DEST_RD_ATOMIC) != 0) {
            a.maxDestRdAtomic(from.maxDestRdAtomic());
        }
        if ((mask & IbvQpAttr.MAX_QP_RD_ATOMIC) != 0) {
            a.maxRdAtomic(from.maxRdAtomic());
        }
        if ((mask & IbvQpAttr.MIN_RNR_TIMER) != 0) {
            a.minRnrTimer(from.minRnrTimer());
        }
        if ((mask & IbvQpAttr.TIMEOUT) != 0) {
            a.timeout(from.timeout());
        }
        if ((mask & IbvQpAttr.RETRY_CNT) != 0) {
            a.retryCnt(from.retryCnt());
        }
        if ((mask & IbvQpAttr.RNR_RETRY) != 0) {
            a.rnrRetry(from.rnrRetry());
        }
    }

    /** Fills {@code out} with every recorded value and the given state. */
    void copyTo(IbvQpAttr out, IbvQpState state) {
        out.qpState(state).pathMtu(a.pathMtu()).qpAccessFlags(a.qpAccessFlags()).pkeyIndex(a.pkeyIndex())
                .portNum(a.portNum()).rqPsn(a.rqPsn()).sqPsn(a.sqPsn()).destQpNum(a.destQpNum())
                .timeout(a.timeout()).retryCnt(a.retryCnt()).rnrRetry(a.rnrRetry()).minRnrTimer(a.minRnrTimer())
                .maxRdAtomic(a.maxRdAtomic()).maxDestRdAtomic(a.maxDestRdAtomic());
        out.ahAttr().copyFrom(a.ahAttr());
    }

    int portNum() {
        return a.portNum();
    }

    int retryCnt() {
        return a.retryCnt();
    }

    int rnrRetry() {
        return a.rnrRetry();
    }

    int timeout() {
        return a.timeout();
    }
}
