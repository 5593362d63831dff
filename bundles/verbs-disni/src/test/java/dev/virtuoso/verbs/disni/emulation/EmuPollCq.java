package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;

import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * TESTS ONLY: a prepared ibv_poll_cq. Fills DiSNI's IbvWC objects the way libdisni 2.1's
 * NatPollCqCall does: wr_id, status and opcode always, everything else only for successful
 * completions (error completions keep the previous poll's qp_num, byte_len, ...); immediate data
 * arrives as libdisni reads the big-endian field, in the platform's byte order.
 */
final class EmuPollCq extends SVCPollCq {
    private final EmuCq cq;
    private final IbvWC[] wcs;
    private final IbvWc[] spi;
    private final int ne;
    private int polls;
    private boolean valid = true;

    EmuPollCq(EmuCq cq, IbvWC[] wcs, int ne) {
        this.cq = cq;
        this.wcs = wcs;
        this.ne = ne;
        this.spi = new IbvWc[ne];
        for (int i = 0; i < ne; i++) {
            spi[i] = new IbvWc();
        }
    }

    @Override
    public SVCPollCq execute() throws IOException {
        if (!cq.isOpen()) {
            throw new IOException("Trying to poll closed CQ.");
        }
        int got;
        try {
            got = cq.spi.pollCq(spi, ne);
        } catch (VerbsException e) {
            throw new IOException("Polling CQ failed", e);
        }
        polls = 0;
        for (int i = 0; i < got; i++) {
            IbvWc s = spi[i];
            if (cq.destroyedQps.contains(s.qpNum())) {
                continue; // ibv_destroy_qp cleans the CQ of the QP's entries
            }
            IbvWC w = wcs[polls++];
            w.setWr_id(s.wrId());
            w.setStatus(s.status().ordinal());
            w.setOpcode(opcode(s.opcode()));
            if (s.status() == IbvWcStatus.SUCCESS) {
                w.setVendor_err(s.vendorErr());
                w.setByte_len(s.byteLen());
                w.setImm_data(EmuPostSend.SWAP ? Integer.reverseBytes(s.immData()) : s.immData());
                w.setQp_num(s.qpNum());
                w.setSrc_qp(s.srcQp());
                w.setWc_flags(s.wcFlags());
            }
        }
        return this;
    }

    static int opcode(IbvWcOpcode op) {
        return switch (op) {
            case SEND -> 0;
            case RDMA_WRITE -> 1;
            case RDMA_READ -> 2;
            case COMP_SWAP -> 3;
            case FETCH_ADD -> 4;
            case BIND_MW -> 5;
            case RECV -> 128;
            case RECV_RDMA_WITH_IMM -> 129;
        };
    }

    @Override
    public int getPolls() {
        return polls;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPollCq free() {
        valid = false;
        return this;
    }
}
