package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.spi.verbs.IbvQpAttr;

/** Names of {@link IbvQpAttr} mask bits, for error messages. */
final class QpAttrMasks {
    private static final String[] NAMES = {
        "STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS", "PKEY_INDEX", "PORT", "QKEY",
        "AV", "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC",
        "ALT_PATH", "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP",
        "DEST_QPN", "bit21", "bit22", "bit23", "bit24", "RATE_LIMIT"
    };

    private QpAttrMasks() {
    }

    static String names(int mask) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            if ((mask & (1 << i)) != 0) {
                if (sb.length() > 0) {
                    sb.append('|');
                }
                sb.append(i < NAMES.length ? NAMES[i] : "bit" + i);
            }
        }
        return sb.toString();
    }
}
