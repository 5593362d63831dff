package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvQpAttr;

/** The mask names in modify_qp's error messages: every bit set, in bit order, unknown bits by number. */
class QpAttrMasksTest {
    @Test
    void namesListEveryBitSetInOrder() {
        assertEquals("", QpAttrMasks.names(0));
        assertEquals("STATE", QpAttrMasks.names(1));
        assertEquals("CUR_STATE|EN_SQD_ASYNC_NOTIFY", QpAttrMasks.names(0b110));
        assertEquals("STATE|DEST_QPN", QpAttrMasks.names(1 | 1 << 20));
        assertEquals("TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC|SQ_PSN",
                QpAttrMasks.names(IbvQpAttr.SQ_PSN | IbvQpAttr.MAX_QP_RD_ATOMIC | IbvQpAttr.RNR_RETRY
                        | IbvQpAttr.RETRY_CNT | IbvQpAttr.TIMEOUT), "names follow the bit order");
    }

    @Test
    void bitsWithoutANameAreNumbered() {
        assertEquals("bit21", QpAttrMasks.names(1 << 21));
        assertEquals("RATE_LIMIT", QpAttrMasks.names(IbvQpAttr.RATE_LIMIT));
        assertEquals("DEST_QPN|bit21|bit31", QpAttrMasks.names(1 << 20 | 1 << 21 | 1 << 31));
    }
}
