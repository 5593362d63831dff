package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;

/** TESTS ONLY: DiSNI's Cq object of the emulation. */
final class EmuCq extends IbvCQ {
    final dev.virtuoso.spi.verbs.IbvCq spi;
    /** QPs destroyed with rdma_destroy_qp: like a NIC driver, their CQEs are removed from the CQ. */
    final java.util.Set<Integer> destroyedQps = java.util.concurrent.ConcurrentHashMap.newKeySet();

    EmuCq(IbvContext context, IbvCompChannel channel, dev.virtuoso.spi.verbs.IbvCq spi, int cqe)
            throws IOException {
        super(context, channel, 0);
        this.spi = spi;
        this.cqe = cqe;
    }
}
