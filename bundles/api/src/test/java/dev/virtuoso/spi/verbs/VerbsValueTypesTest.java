package dev.virtuoso.spi.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VerbsValueTypesTest {

    @Test
    void mtuMapsOnlyLegalSizes() {
        assertEquals(IbvMtu.MTU_4096, IbvMtu.ofBytes(4096));
        assertEquals(256, IbvMtu.MTU_256.bytes());
        assertThrows(IllegalArgumentException.class, () -> IbvMtu.ofBytes(1500));
    }

    @Test
    void wcStatusFollowsLibibverbsNumbering() {
        // values from enum ibv_wc_status in verbs.h
        assertEquals(IbvWcStatus.SUCCESS, IbvWcStatus.of(0));
        assertEquals(IbvWcStatus.LOC_PROT_ERR, IbvWcStatus.of(4));
        assertEquals(IbvWcStatus.WR_FLUSH_ERR, IbvWcStatus.of(5));
        assertEquals(IbvWcStatus.REM_ACCESS_ERR, IbvWcStatus.of(10));
        assertEquals(IbvWcStatus.RETRY_EXC_ERR, IbvWcStatus.of(12));
        assertEquals(IbvWcStatus.RNR_RETRY_EXC_ERR, IbvWcStatus.of(13));
        assertEquals(IbvWcStatus.GENERAL_ERR, IbvWcStatus.of(21));
        assertEquals(IbvWcStatus.GENERAL_ERR, IbvWcStatus.of(999));
    }

    @Test
    void qpAttrMasksFollowLibibverbs() {
        assertEquals(1 << 20, IbvQpAttr.DEST_QPN);
        assertTrue((IbvQpAttr.MASK_RTR & IbvQpAttr.AV) != 0);
        assertTrue((IbvQpAttr.MASK_RTS & IbvQpAttr.SQ_PSN) != 0);
    }

    @Test
    void sendWrIsReusableAndBoundsChecked() {
        IbvSendWr wr = new IbvSendWr(2);
        wr.sge(0).set(100, 10, 7);
        wr.sge(1).set(200, 5, 7);
        wr.numSge(2);
        assertEquals(15, wr.totalLength());
        wr.numSge(1);
        assertEquals(10, wr.totalLength());
        assertThrows(IllegalArgumentException.class, () -> wr.numSge(3));
        assertThrows(IllegalArgumentException.class, () -> new IbvRecvWr(0));
    }

    @Test
    void wcCopiesEveryField() {
        IbvWc a = new IbvWc().set(42, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV_RDMA_WITH_IMM, 4096, 0xBEEF,
                IbvWc.WITH_IMM, 5, 6, 0);
        IbvWc b = new IbvWc().copyFrom(a);
        assertEquals(a.toString(), b.toString());
        assertTrue(b.hasImm());
        assertEquals(0xBEEF, b.immData());
    }

    @Test
    void vnicValidatesItsFields() {
        assertThrows(IllegalArgumentException.class, () -> new Vnic(null, 0, "eth0"));
    }
}
