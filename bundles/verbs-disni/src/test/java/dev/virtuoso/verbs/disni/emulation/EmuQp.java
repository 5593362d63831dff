package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;

/** TESTS ONLY: DiSNI's Qp object of the emulation. */
final class EmuQp extends IbvQP {
    final dev.virtuoso.spi.verbs.IbvQp spi;

    EmuQp(IbvContext context, IbvPd pd, IbvCQ sendCq, IbvCQ recvCq, dev.virtuoso.spi.verbs.IbvQp spi)
            throws IOException {
        super(spi.qpNum());
        this.spi = spi;
        this.context = context;
        this.pd = pd;
        this.send_cq = sendCq;
        this.recv_cq = recvCq;
        this.qp_type = IBV_QPT_RC;
    }
}
