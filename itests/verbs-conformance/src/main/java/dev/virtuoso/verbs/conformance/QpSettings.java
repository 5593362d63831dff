package dev.virtuoso.verbs.conformance;

import dev.virtuoso.spi.verbs.IbvAccess;

/**
 * Attributes for a pair of connected test QPs; mutable, fluent. Defaults: timeout 14 (67 ms),
 * retry_cnt 7, rnr_retry 7, min_rnr_timer 12 (0.64 ms), 16 outstanding READs each way, remote
 * read and write allowed, queues of 1024 WRs with 4 SGEs.
 */
public final class QpSettings {
    int timeout = 14;
    int retryCnt = 7;
    int rnrRetry = 7;
    int minRnrTimer = 12;
    int maxRdAtomic = 16;
    int access = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ;
    int maxSendWr = 1024;
    int maxRecvWr = 1024;
    int maxSge = 4;
    int maxInline;
    Integer psnAtoB;
    Integer psnBtoA;

    public QpSettings timeout(int t) {
        timeout = t;
        return this;
    }

    public QpSettings retryCnt(int n) {
        retryCnt = n;
        return this;
    }

    public QpSettings rnrRetry(int n) {
        rnrRetry = n;
        return this;
    }

    public QpSettings minRnrTimer(int code) {
        minRnrTimer = code;
        return this;
    }

    /** @param n max_rd_atomic and max_dest_rd_atomic of both QPs @return this */
    public QpSettings maxRdAtomic(int n) {
        maxRdAtomic = n;
        return this;
    }

    public QpSettings access(int flags) {
        access = flags;
        return this;
    }

    public QpSettings maxSendWr(int n) {
        maxSendWr = n;
        return this;
    }

    public QpSettings maxInline(int n) {
        maxInline = n;
        return this;
    }

    /** @param aToB first PSN from A to B @param bToA first PSN from B to A @return this */
    public QpSettings psns(int aToB, int bToA) {
        psnAtoB = aToB;
        psnBtoA = bToA;
        return this;
    }
}
