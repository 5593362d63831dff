package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.nio.ByteOrder;
import java.util.List;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostSend;

import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * TESTS ONLY: a prepared ibv_post_send. Like libdisni's, it copies the WR list when prepared (the
 * "native" WR); later changes to the IbvSendWR objects have no effect, only the modifiers
 * (wr_id, flags, remote address, rkey, SGE address/length/lkey) change the copy.
 */
final class EmuPostSend extends SVCPostSend {
    static final boolean SWAP = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final EmuQp qp;
    private final Wr[] wrs;
    private final IbvSendWr[] spi;
    private boolean valid = true;

    EmuPostSend(EmuQp qp, List<IbvSendWR> list) {
        this.qp = qp;
        this.wrs = new Wr[list.size()];
        this.spi = new IbvSendWr[list.size()];
        for (int i = 0; i < wrs.length; i++) {
            wrs[i] = new Wr(list.get(i));
            spi[i] = new IbvSendWr(Math.max(1, wrs[i].sges.length));
        }
    }

    @Override
    public SVCPostSend execute() throws IOException {
        if (!valid) {
            throw new IOException("stateful call freed");
        }
        if (!qp.isOpen()) {
            throw new IOException("Trying to post send on closed QP");
        }
        for (int i = 0; i < wrs.length; i++) {
            Wr w = wrs[i];
            IbvSendWr s = spi[i];
            s.wrId(w.wrId).opcode(opcode(w.opcode)).sendFlags(flags(w.flags)).numSge(w.sges.length)
                    .remoteAddr(w.rdma.remoteAddr).rkey(w.rdma.rkey)
                    .immData(SWAP ? Integer.reverseBytes(w.imm) : w.imm);
            for (int k = 0; k < w.sges.length; k++) {
                s.sge(k).set(w.sges[k].addr, w.sges[k].length, w.sges[k].lkey);
            }
            try {
                qp.spi.postSend(s);
            } catch (VerbsException e) {
                throw EmuObjects.libdisni("post_send", "ibv_post_send", e);
            }
        }
        return this;
    }

    private static IbvWrOpcode opcode(int code) throws IOException {
        return switch (code) {
            case IbvSendWR.IBV_WR_RDMA_WRITE -> IbvWrOpcode.RDMA_WRITE;
            case IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM -> IbvWrOpcode.RDMA_WRITE_WITH_IMM;
            case IbvSendWR.IBV_WR_SEND -> IbvWrOpcode.SEND;
            case IbvSendWR.IBV_WR_SEND_WITH_IMM -> IbvWrOpcode.SEND_WITH_IMM;
            case IbvSendWR.IBV_WR_RDMA_READ -> IbvWrOpcode.RDMA_READ;
            default -> throw new IOException("j2c::post_send: ibv_post_send failed: Invalid argument\n");
        };
    }

    private static int flags(int f) {
        int s = 0;
        s |= (f & IbvSendWR.IBV_SEND_FENCE) != 0 ? IbvSendFlags.FENCE : 0;
        s |= (f & IbvSendWR.IBV_SEND_SIGNALED) != 0 ? IbvSendFlags.SIGNALED : 0;
        s |= (f & IbvSendWR.IBV_SEND_SOLICITED) != 0 ? IbvSendFlags.SOLICITED : 0;
        s |= (f & IbvSendWR.IBV_SEND_INLINE) != 0 ? IbvSendFlags.INLINE : 0;
        return s;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPostSend free() {
        valid = false;
        return this;
    }

    @Override
    public SendWRMod getWrMod(int index) {
        return wrs[index];
    }

    /** The "native" copy of one WR. */
    private static final class Wr implements SendWRMod {
        long wrId;
        int flags;
        final int opcode;
        final int imm;
        final Rdma rdma = new Rdma();
        final Sge[] sges;

        Wr(IbvSendWR w) {
            wrId = w.getWr_id();
            flags = w.getSend_flags();
            opcode = w.getOpcode();
            imm = w.getImm_data();
            rdma.remoteAddr = w.getRdma().getRemote_addr();
            rdma.rkey = w.getRdma().getRkey();
            sges = new Sge[w.getSg_list().size()];
            for (int i = 0; i < sges.length; i++) {
                sges[i] = new Sge();
                sges[i].addr = w.getSg_list().get(i).getAddr();
                sges[i].length = w.getSg_list().get(i).getLength();
                sges[i].lkey = w.getSg_list().get(i).getLkey();
            }
        }

        @Override
        public void setWr_id(long id) {
            wrId = id;
        }

        @Override
        public void setSend_flags(int f) {
            flags = f;
        }

        @Override
        public long getWr_id() {
            return wrId;
        }

        @Override
        public int getNum_sge() {
            return sges.length;
        }

        @Override
        public int getOpcode() {
            return opcode;
        }

        @Override
        public int getSend_flags() {
            return flags;
        }

        @Override
        public RdmaMod getRdmaMod() {
            return rdma;
        }

        @Override
        public SgeMod getSgeMod(int index) {
            return sges[index];
        }
    }

    private static final class Rdma implements RdmaMod {
        long remoteAddr;
        int rkey;
        int reserved;

        @Override
        public void setRemote_addr(long a) {
            remoteAddr = a;
        }

        @Override
        public long getRemote_addr() {
            return remoteAddr;
        }

        @Override
        public void setRkey(int k) {
            rkey = k;
        }

        @Override
        public int getRkey() {
            return rkey;
        }

        @Override
        public void setReserved(int r) {
            reserved = r;
        }

        @Override
        public int getReserved() {
            return reserved;
        }
    }

    private static final class Sge implements SgeMod {
        long addr;
        int length;
        int lkey;

        @Override
        public void setAddr(long a) {
            addr = a;
        }

        @Override
        public long getAddr() {
            return addr;
        }

        @Override
        public void setLength(int l) {
            length = l;
        }

        @Override
        public int getLength() {
            return length;
        }

        @Override
        public void setLkey(int k) {
            lkey = k;
        }

        @Override
        public int getLkey() {
            return lkey;
        }
    }
}
